// An HTTP/2 visitor connection: nghttp2's session, its callbacks, and the loops that read from
// and write to the visitor's stream (TLS, or a plain socket with --edge-h2c).
#include "edge/h2_connection.h"

#include <cstring>

#include "util/log.h"

namespace wr::edge {
namespace {

// What the connection lets in before the visitor's bytes must wait for the origin to take some:
// each stream's window (HTTP/2's default), and the connection's, shared by all its streams.
constexpr int32_t k_stream_window = 65535;
constexpr int32_t k_connection_window = 1024 * 1024;
constexpr uint32_t k_max_concurrent_streams = 100;
// HEADERS frames of one block beyond the first (nghttp2's default, said here so it stays so).
constexpr size_t k_max_continuations = 8;
// SETTINGS and PING acknowledgements queued because the client does not read them.
constexpr size_t k_max_outbound_ack = 1000;
// nghttp2 bounds queued acknowledgements only (above); the frames it queues to refuse or reset
// streams are not. A client that makes it queue them faster than it reads (its window shut, the
// edge's SETTINGS never acknowledged, so every stream past the limit is refused) would grow the
// queue without end: past this many queued frames its connection ends.
constexpr size_t k_max_outbound_frames = 2000;
// What one write to the visitor gathers at most.
constexpr size_t k_write_batch = 64 * 1024;

H2Connection& connection_of(void* user_data) { return *static_cast<H2Connection*>(user_data); }

H2Stream* stream_of(nghttp2_session* session, int32_t stream_id) {
    return static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, stream_id));
}

} // namespace

// The callbacks nghttp2 calls while it reads and writes; friends of the connection.
struct H2Callbacks {
    static int begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
        if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
        H2Connection& connection = connection_of(user_data);
        std::shared_ptr<H2Stream> stream;
        if (connection.m_spare.empty()) {
            stream = std::make_shared<H2Stream>(frame->hd.stream_id, connection.m_worker.io.get_executor());
        } else {
            stream = std::move(connection.m_spare.back());
            connection.m_spare.pop_back();
            stream->reuse(frame->hd.stream_id);
        }
        nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, stream.get());
        connection.m_streams.emplace(frame->hd.stream_id, std::move(stream));
        ++connection.m_partial;
        return 0;
    }

    static int header(nghttp2_session* session, const nghttp2_frame* frame, const uint8_t* name, size_t name_size, const uint8_t* value,
                      size_t value_size, uint8_t, void*) {
        // Trailers (a second HEADERS on a request) are not passed on: the origin gets the body chunked without them.
        if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
        H2Stream* stream = stream_of(session, frame->hd.stream_id);
        if (!stream) return 0;
        // Past the limit the rest is dropped and the request answered 431; nghttp2 bounds the
        // CONTINUATION frames that could carry more. Far past it, the stream is reset: nghttp2
        // then decodes the rest of the block without checking or handing over its fields, so a
        // block costs what its bytes cost, however large the values its fields point to.
        if (!stream->fields.add(std::string_view(reinterpret_cast<const char*>(name), name_size),
                                std::string_view(reinterpret_cast<const char*>(value), value_size)) &&
            stream->fields.far_too_large())
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        return 0;
    }

    static int frame_received(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
        H2Connection& connection = connection_of(user_data);
        switch (frame->hd.type) {
        case NGHTTP2_HEADERS: {
            H2Stream* stream = stream_of(session, frame->hd.stream_id);
            if (!stream) return 0;
            if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) {
                stream->end_stream = true;
                stream->upload_signal.cancel();
            }
            if (frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
                --connection.m_partial;
                ++connection.m_active;
                stream->headers_complete = true;
                stream->fields.build(stream->head, stream->end_stream);
                connection.m_ready.push_back(connection.m_streams[frame->hd.stream_id]);
            }
            return 0;
        }
        case NGHTTP2_DATA:
            if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)
                if (H2Stream* stream = stream_of(session, frame->hd.stream_id)) {
                    stream->end_stream = true;
                    stream->upload_signal.cancel();
                }
            return 0;
        case NGHTTP2_RST_STREAM: connection.count_control(H2ControlFrame::reset); return 0;
        case NGHTTP2_PRIORITY: connection.count_control(H2ControlFrame::priority); return 0;
        // Acknowledgements answer the edge's own frames: only the client's own count.
        case NGHTTP2_SETTINGS:
            if (!(frame->hd.flags & NGHTTP2_FLAG_ACK)) connection.count_control(H2ControlFrame::settings);
            return 0;
        case NGHTTP2_PING:
            if (!(frame->hd.flags & NGHTTP2_FLAG_ACK)) connection.count_control(H2ControlFrame::ping);
            return 0;
        default: return 0;
        }
    }

    // A frame nghttp2 refused (a stream's window overflowed, a malformed header block, DATA past
    // the content-length): it resets the stream itself. Counted as a reset the client made — the
    // stream's slot is free again at once — or the rapid-reset bound could be had this way
    // instead ("MadeYouReset", CVE-2025-8671).
    // Such a stream closes only once its RST_STREAM is written, after this read: marked, so that
    // it is never started — never admitted to a room or sent to the origin for a client that
    // will not see the answer.
    static int invalid_frame(nghttp2_session* session, const nghttp2_frame* frame, int, void* user_data) {
        if (H2Stream* stream = frame->hd.stream_id != 0 ? stream_of(session, frame->hd.stream_id) : nullptr) stream->doomed = true;
        connection_of(user_data).count_control(H2ControlFrame::reset);
        return 0;
    }

    static int data_chunk(nghttp2_session* session, uint8_t, int32_t stream_id, const uint8_t* data, size_t size, void* user_data) {
        H2Connection& connection = connection_of(user_data);
        H2Stream* stream = stream_of(session, stream_id);
        if (!stream || stream->closed) {
            nghttp2_session_consume_connection(session, size);
            return 0;
        }
        stream->body_received += size;
        const uint64_t limit = connection.m_shared.options.max_request_body;
        if (stream->body_too_large || (limit > 0 && stream->body_received > limit)) {
            // Not kept: the stream is answered 413 (or cut) by its coroutine.
            stream->body_too_large = true;
            nghttp2_session_consume(session, stream_id, size);
        } else {
            stream->body_in.append(reinterpret_cast<const char*>(data), size);
            stream->unconsumed += size;
            // A stream waiting for an origin connection under a full cap holds its stream's window
            // (64 KiB) of body, and none of the connection's: 16 such streams would otherwise fill
            // the connection's 1 MiB with bytes that go nowhere yet, and the streams that hold
            // origin connections could bring no more of their bodies.
            if (stream->waits_for_origin) {
                nghttp2_session_consume_connection(session, size);
                stream->connection_credited += size;
            }
        }
        stream->upload_signal.cancel();
        stream->signal.cancel();
        return 0;
    }

    static int stream_closed(nghttp2_session* session, int32_t stream_id, uint32_t error_code, void* user_data) {
        H2Connection& connection = connection_of(user_data);
        const auto found = connection.m_streams.find(stream_id);
        if (found == connection.m_streams.end()) return 0;
        H2Stream& stream = *found->second;
        if (stream.headers_complete) --connection.m_active;
        else --connection.m_partial;
        connection.close_stream(stream, error_code);
        nghttp2_session_set_stream_user_data(session, stream_id, nullptr);
        if (!stream.running && stream.started) connection.recycle(found->second);
        connection.m_streams.erase(found);
        connection.update_phase(); // streams are started after the read, never from inside nghttp2
        return 0;
    }

    // An answer complete before its request (a 413, an origin that answered early): the visitor
    // is told to stop sending the rest (RFC 9113 §8.1), after the answer's last frame.
    static int frame_sent(nghttp2_session* session, const nghttp2_frame* frame, void*) {
        if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) || !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
        const H2Stream* stream = stream_of(session, frame->hd.stream_id);
        if (stream && !stream->end_stream) nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_NO_ERROR);
        return 0;
    }

    static ssize_t read_body(nghttp2_session*, int32_t, uint8_t* buffer, size_t length, uint32_t* flags, nghttp2_data_source* source,
                             void* user_data) {
        H2Stream& stream = *static_cast<H2Stream*>(source->ptr);
        const std::string_view all = stream.page ? stream.out_view : std::string_view(stream.body_out);
        const std::string_view pending = all.substr(stream.out_at);
        const size_t size = std::min(length, pending.size());
        if (size > 0) {
            std::memcpy(buffer, pending.data(), size);
            // nghttp2 asks only as far as the windows let bytes out: the visitor took these.
            stream.taken_at = std::chrono::steady_clock::now();
            if (!stream.served) connection_of(user_data).watch_answers();
        }
        stream.out_at += size;
        stream.access.bytes_out += size;
        if (!stream.page && stream.out_at == stream.body_out.size()) {
            stream.body_out.clear();
            stream.out_at = 0;
        }
        if (size == pending.size() && stream.out_end) {
            *flags |= NGHTTP2_DATA_FLAG_EOF;
            return static_cast<ssize_t>(size);
        }
        if (size == 0) {
            stream.deferred = true;
            return NGHTTP2_ERR_DEFERRED;
        }
        stream.signal.cancel(); // room for more of the origin's answer
        return static_cast<ssize_t>(size);
    }
};

nghttp2_data_source_read_callback h2_body_reader() { return H2Callbacks::read_body; }

H2Connection::H2Connection(Worker& worker, const EdgeShared& shared, net::Socket& socket, queue::ClientAddress peer, bool https)
    : m_worker(worker), m_shared(shared), m_socket(socket), m_https(https),
      m_requests(https ? shared.analytics.edge().h2_requests : shared.analytics.edge().h2c_requests), m_peer(peer),
      m_peer_text(address_text(peer)), m_trusted_proxy(shared.trusted_proxies.contains(peer)), m_write_signal(worker.io.get_executor()),
      m_done_signal(worker.io.get_executor()) {
    m_watch.visitor = &socket;
    m_watch.goes_away = true; // shed under the connection cap with GOAWAY, as at the idle timeout
    m_write_watch.visitor = &socket;
    m_worker.watches.add(m_watch);
    m_worker.watches.add(m_write_watch);
    m_worker.h2_connections.insert(this);
    shared.analytics.edge().h2_connections.fetch_add(1, std::memory_order_relaxed);

    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, H2Callbacks::begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, H2Callbacks::header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, H2Callbacks::frame_received);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, H2Callbacks::data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, H2Callbacks::stream_closed);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, H2Callbacks::frame_sent);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks, H2Callbacks::invalid_frame);
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    // The window is given back as the origin takes the bytes, not as they arrive (h2_exchange.cpp).
    nghttp2_option_set_no_auto_window_update(option, 1);
    nghttp2_option_set_max_continuations(option, k_max_continuations);
    nghttp2_option_set_max_outbound_ack(option, k_max_outbound_ack);
    nghttp2_option_set_max_settings(option, 32);
    nghttp2_session_server_new3(&m_session, callbacks, this, option, m_worker.h2_memory.allocator());
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
}

H2Connection::~H2Connection() {
    *m_alive = false;
    nghttp2_session_del(m_session);
    m_worker.h2_connections.erase(this);
    m_worker.watches.remove(m_write_watch);
    m_worker.watches.remove(m_watch);
}

void H2Connection::wake_writer() { m_write_signal.cancel(); }

void H2Connection::go_away() {
    if (m_went_away) return;
    m_went_away = true;
    // nghttp2 stops taking streams only once the GOAWAY is written, which a slow reader delays:
    // those opened meanwhile are refused here (after_input), never sent to the origin.
    m_last_stream = nghttp2_session_get_last_proc_stream_id(m_session);
    nghttp2_submit_goaway(m_session, NGHTTP2_FLAG_NONE, m_last_stream, NGHTTP2_NO_ERROR, nullptr, 0);
    wake_writer();
}

void H2Connection::refuse(H2Stream& stream) {
    stream.doomed = true;
    nghttp2_submit_rst_stream(m_session, NGHTTP2_FLAG_NONE, stream.id, NGHTTP2_REFUSED_STREAM);
}

void H2Connection::count_control(H2ControlFrame kind) {
    const auto now = std::chrono::steady_clock::now();
    // Within its bound, or past it already (the session is ending): nothing more to do.
    if (m_flood_guard.admit(kind, now) || !m_flood_guard.just_passed(kind)) return;
    calm_down(std::string(H2FloodGuard::what(kind)) + " too fast");
}

void H2Connection::calm_down(const std::string& what) {
    // An attacker reconnects at once and would write this line hundreds of times a second:
    // once a second per thread, with how many more there were.
    const auto now = std::chrono::steady_clock::now();
    thread_local std::chrono::steady_clock::time_point last_warned{};
    thread_local int unwarned = 0;
    if (now - last_warned >= std::chrono::seconds{1}) {
        util::log_warn("edge", "an HTTP/2 client at " + m_peer_text + " " + what + "; its connection ends" +
                                   (unwarned > 0 ? " (and " + std::to_string(unwarned) + " more connections since the last such line)" : ""));
        last_warned = now;
        unwarned = 0;
    } else {
        ++unwarned;
    }
    m_shared.analytics.edge().h2_calm_goaways.fetch_add(1, std::memory_order_relaxed);
    nghttp2_session_terminate_session(m_session, NGHTTP2_ENHANCE_YOUR_CALM);
}

void H2Connection::close_stream(H2Stream& stream, uint32_t) {
    stream.closed = true;
    if (!stream.running) end_request(stream); // answered without a coroutine (a running one ends it)
    // Bytes received for it and not yet passed on: the connection's window gets them back.
    if (stream.unconsumed > stream.connection_credited) nghttp2_session_consume_connection(m_session, stream.unconsumed - stream.connection_credited);
    stream.unconsumed = stream.connection_credited = 0;
    stream.signal.cancel();
    stream.upload_signal.cancel();
    error_code ignored;
    if (stream.watch.origin) stream.watch.origin->cancel(ignored);
    stream.watch.abandon(); // a wait for an origin connection under the cap ends now
}

void H2Stream::reuse(int32_t stream_id) {
    id = stream_id;
    running = closed = doomed = headers_complete = end_stream = started = served = responded = in_flight = waits_for_origin = false;
    fields.clear();
    cookies.clear();
    body_received = unconsumed = connection_credited = 0;
    body_too_large = false;
    page.reset();
    // A spare stream keeps the room an ordinary body needs, not that of the largest answer it
    // ever passed on: 16 spare streams after a burst of large ones would hold megabytes for as
    // long as the connection lives.
    for (std::string* buffer : {&body_in, &body_out}) {
        if (buffer->capacity() > k_spare_room) std::string().swap(*buffer);
        else buffer->clear();
    }
    out_at = 0;
    out_view = {};
    out_end = deferred = false;
    taken_at = {};
    watch.expire_never();
    watch.visitor = watch.origin = nullptr;
    watch.queue_wait = nullptr;
    watch.abandoned = false;
}

void H2Connection::recycle(const std::shared_ptr<H2Stream>& stream) {
    constexpr size_t k_max_spare = 16;
    if (m_reading && m_spare.size() < k_max_spare) m_spare.push_back(stream);
}

void H2Connection::set_phase(Phase phase) {
    if (phase == m_phase) return;
    m_phase = phase;
    m_worker.watches.set_idle(m_watch, phase == Phase::idle);
    switch (phase) {
    case Phase::preface:
    case Phase::reading_headers: m_watch.expire_in(m_shared.options.header_timeout); break;
    // The streams' coroutines watch their own answers, the connection wr's (watch_answers(),
    // after every update_phase()).
    case Phase::busy:
    case Phase::answering: break;
    case Phase::idle: m_watch.expire_in(m_shared.options.idle_timeout); break;
    }
}

// A visitor that stops taking wr's answers (its windows shut) loses the connection, as a stream's
// coroutine resets a stream whose answer is not taken. Timed from the bytes taken alone: a client
// that keeps the connection busy (PINGs, a stream on the origin) holds no answer longer.
void H2Connection::watch_answers() {
    if (m_phase != Phase::busy && m_phase != Phase::answering) return;
    auto oldest = net::SteadyTime::max();
    for (const auto& [id, stream] : m_streams)
        if (stream->responded && !stream->served && !stream->closed) oldest = std::min(oldest, stream->taken_at);
    if (oldest == net::SteadyTime::max()) m_watch.expire_never();
    else m_watch.expire_at(oldest + m_shared.options.origin.response_timeout);
}

void H2Connection::after_input() {
    for (auto& stream : m_ready) {
        if (stream->closed || stream->doomed || !m_reading) continue;
        if (m_went_away && stream->id > m_last_stream) {
            refuse(*stream);
            continue;
        }
        stream->started = true;
        if (!decide(*stream)) {
            // Answered: its line is written when nghttp2 closes it, unless it already has.
            if (stream->closed) end_request(*stream);
            continue;
        }
        stream->running = stream->served = true;
        ++m_running_streams;
        asio::co_spawn(m_worker.io, serve_stream(stream), asio::detached);
    }
    m_ready.clear();
    update_phase();
}

void H2Connection::update_phase() {
    if (m_partial > 0) set_phase(Phase::reading_headers);
    else if (m_active > 0) set_phase(m_running_streams > 0 ? Phase::busy : Phase::answering);
    else if (m_phase != Phase::preface) set_phase(Phase::idle);
    watch_answers(); // the streams answered, taken or closed since
}

template <typename Stream> net::Task<> H2Connection::write_loop(Stream& stream) {
    while (true) {
        m_out.clear();
        while (m_out.size() < k_write_batch) {
            const uint8_t* data = nullptr;
            const ssize_t size = nghttp2_session_mem_send(m_session, &data);
            if (size <= 0) break; // nothing more now, or a fatal error (the session is then done)
            m_out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
        }
        if (m_out.empty()) {
            if (!m_reading || (!nghttp2_session_want_read(m_session) && !nghttp2_session_want_write(m_session))) break;
            m_write_signal.expires_at(net::SteadyTime::max());
            error_code ignored;
            co_await m_write_signal.async_wait(net::awaitable(ignored));
            continue;
        }
        m_write_watch.expire_in(m_reading ? m_shared.options.origin.response_timeout : std::chrono::milliseconds{5000});
        error_code ec;
        co_await asio::async_write(stream, asio::buffer(m_out), net::awaitable(ec));
        m_write_watch.expire_never();
        if (ec) break;
    }
    m_writer_done = true;
    // The session has nothing left to do (GOAWAY sent and every stream done), or the visitor is
    // gone: the reading side stops too.
    if (m_reading) {
        error_code ignored;
        m_socket.cancel(ignored);
    }
    m_done_signal.cancel();
}

bool H2Connection::receive(const char* data, size_t size) {
    const ssize_t used = nghttp2_session_mem_recv(m_session, reinterpret_cast<const uint8_t*>(data), size);
    if (used < 0) {
        // Not HTTP/2 (a bad preface), or a flood nghttp2 caught: GOAWAY if it can still go, then close.
        if (used == NGHTTP2_ERR_FLOODED) m_shared.analytics.edge().h2_calm_goaways.fetch_add(1, std::memory_order_relaxed);
        nghttp2_session_terminate_session(m_session, used == NGHTTP2_ERR_FLOODED ? NGHTTP2_ENHANCE_YOUR_CALM : NGHTTP2_PROTOCOL_ERROR);
        return false;
    }
    if (nghttp2_session_get_outbound_queue_size(m_session) > k_max_outbound_frames) {
        calm_down("made the edge queue more than " + std::to_string(k_max_outbound_frames) + " frames it did not read");
        wake_writer();
        return false;
    }
    after_input();
    wake_writer();
    return nghttp2_session_want_read(m_session) != 0;
}

template <typename Stream> net::Task<> H2Connection::serve(Stream& stream, std::string_view already_read) {
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, k_max_concurrent_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, k_stream_window},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, RequestFields::k_max_list_size},
    };
    nghttp2_submit_settings(m_session, NGHTTP2_FLAG_NONE, settings, std::size(settings));
    nghttp2_session_set_local_window_size(m_session, NGHTTP2_FLAG_NONE, 0, k_connection_window);
    m_phase = Phase::idle;
    set_phase(Phase::preface);
    if (m_shared.draining.load(std::memory_order_acquire)) go_away();
    asio::co_spawn(m_worker.io, write_loop(stream), asio::detached);

    bool visitor_gone = false;
    bool reading = already_read.empty() || receive(already_read.data(), already_read.size());
    while (reading && m_reading) {
        error_code ec;
        const size_t got = co_await stream.async_read_some(asio::buffer(m_in), net::awaitable(ec));
        if (ec) {
            // Idle past --idle-timeout, or shed under the connection cap: a GOAWAY first (RFC
            // 9113 §9.1), so that a request the client sends just as the connection ends is known
            // unprocessed, and sent again.
            if (m_watch.expired && m_phase == Phase::idle && !m_writer_done) {
                go_away();
                break;
            }
            visitor_gone = !m_writer_done; // not the writer's stop: the visitor closed, or its deadline passed
            break;
        }
        reading = receive(m_in.data(), got);
    }

    // The end: every stream still running stops (its origin reads are cut short), the writer
    // sends what is left (a GOAWAY, within a few seconds), and the streams' coroutines end.
    m_reading = false;
    m_ready.clear();
    for (auto& [id, stream] : m_streams) close_stream(*stream, NGHTTP2_CANCEL);
    wake_writer();
    while (m_running_streams > 0 || !m_writer_done) {
        m_done_signal.expires_after(std::chrono::milliseconds{100});
        error_code ignored;
        co_await m_done_signal.async_wait(net::awaitable(ignored));
    }
    if (visitor_gone) co_return;
    // The GOAWAY is written; closing now, on bytes the visitor is still sending, would reset the
    // connection and could lose it. The visitor gets an end of stream instead, and what it still
    // sends is read and dropped for a moment, a bounded amount.
    error_code ec;
    m_socket.shutdown(tcp::socket::shutdown_send, ec);
    m_watch.expire_in(std::chrono::seconds{2});
    size_t drained = 0;
    while (!ec && drained < 1024 * 1024) drained += co_await m_socket.async_read_some(asio::buffer(m_in), net::awaitable(ec));
}

// The two streams a visitor's HTTP/2 comes over.
template net::Task<> H2Connection::serve(net::TlsSocket& stream, std::string_view already_read);
template net::Task<> H2Connection::serve(net::Socket& stream, std::string_view already_read);

net::Task<bool> H2Connection::wait(net::Timer& timer, std::chrono::steady_clock::duration timeout) {
    timer.expires_after(timeout);
    error_code ec;
    co_await timer.async_wait(net::awaitable(ec));
    co_return ec == asio::error::operation_aborted;
}

void H2Connection::resume(H2Stream& stream) {
    if (!stream.deferred || stream.closed) return;
    stream.deferred = false;
    nghttp2_session_resume_data(m_session, stream.id);
    wake_writer();
}

void H2Connection::wait_for_origin(H2Stream& stream, bool waiting) {
    stream.waits_for_origin = waiting;
    if (!waiting || stream.closed) return;
    // What it received so far goes out of the connection's window now; what comes while it
    // waits, as it comes (H2Callbacks::data_chunk).
    if (const uint64_t owed = stream.unconsumed - stream.connection_credited; owed > 0) {
        nghttp2_session_consume_connection(m_session, owed);
        stream.connection_credited = stream.unconsumed;
        wake_writer();
    }
}

void H2Connection::give_back(H2Stream& stream, size_t bytes) {
    if (stream.closed || bytes == 0) return;
    bytes = std::min<uint64_t>(bytes, stream.unconsumed);
    stream.unconsumed -= bytes;
    // Bytes that came while it waited gave the connection its window back then: the stream's only.
    const uint64_t credited = std::min<uint64_t>(bytes, stream.connection_credited);
    stream.connection_credited -= credited;
    if (credited > 0) nghttp2_session_consume_stream(m_session, stream.id, credited);
    if (bytes > credited) nghttp2_session_consume(m_session, stream.id, bytes - credited);
    wake_writer();
}

} // namespace wr::edge
