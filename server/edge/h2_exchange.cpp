// One HTTP/2 stream as a request: the Gate's decision, wr's own answers, and the exchange with
// the HTTP/1.1 origin (the request body streamed to it as the visitor sends it, the answer
// streamed back as the visitor takes it), recorded for the zone, the room and the access log as
// HTTP/1 requests are (edge/proxy_exchange.cpp).
#include <array>

#include "analytics/prometheus.h"
#include "edge/forward_head.h"
#include "edge/h2_connection.h"
#include "edge/incoming_request.h"
#include "edge/visitor_connection.h"
#include "origin/registry.h"
#include "util/log.h"
#include "util/scoped_count.h"

namespace wr::edge {

nghttp2_data_source_read_callback h2_body_reader(); // h2_connection.cpp

namespace {

constexpr std::string_view k_crlf = "\r\n";
constexpr std::string_view k_last_chunk = "0\r\n\r\n";
constexpr int k_busy_retry_after_seconds = 5;
// The origin's answer read ahead of the visitor, per stream: past this, wait for the visitor.
constexpr size_t k_answer_ahead = 64 * 1024;
const std::shared_ptr<origin::ConnectionCap> k_no_cap;
// How often a stream whose answer the visitor does not take looks whether others wait for its
// origin connection (ConnectionCap::k_stall_while_others_wait).
constexpr std::chrono::milliseconds k_stall_check{250};
// How long a request without a length waits for its body's first bytes, or its end, before the
// edge decides whether it has a body at all.
constexpr std::chrono::milliseconds k_first_bytes_wait{250};

asio::const_buffer buffer_of(std::string_view text) { return asio::buffer(text.data(), text.size()); }

// A stream's watch is in the thread's sweep while the stream runs (its origin deadlines).
class Watched {
public:
    Watched(net::ConnectionWatches& watches, net::ConnectionWatch& watch) : m_watches(watches), m_watch(watch) { m_watches.add(m_watch); }
    ~Watched() { m_watches.remove(m_watch); }
    Watched(const Watched&) = delete;
    Watched& operator=(const Watched&) = delete;

private:
    net::ConnectionWatches& m_watches;
    net::ConnectionWatch& m_watch;
};

} // namespace

// How a request body's way to the origin ended.
struct H2Upload {
    enum class End { complete, visitor_closed, visitor_too_slow, too_large, origin_failed, stopped } end = End::complete;
    bool running = false;
    bool finished = false;
    bool stopping = false;
    uint64_t bytes = 0;
    const origin::ConnectionCap* cap = nullptr; // the zone's, if it has one
};

void H2Connection::begin_record(H2Stream& stream) {
    const bool logging = m_worker.access_log.enabled();
    stream.access.begin(logging ? m_shared.clock.now() : util::TimePoint{},
                        logging ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{});
    stream.access.protocol = "HTTP/2.0";
    std::string_view forwarded;
    if (m_trusted_proxy) forwarded = stream.head.find("x-request-id");
    m_worker.request_ids.take_or_make(forwarded, stream.access.request_id);
    if (logging) stream.access.client = m_peer_text;
}

void H2Connection::finish_record(H2Stream& stream) {
    if (stream.access.active) {
        stream.access.active = false;
        if (m_worker.logging && m_worker.access_log.enabled()) m_worker.access_log.append(stream.access, std::chrono::steady_clock::now());
    }
    // The record's zone and room point into it: released only once the line is written.
    stream.snapshot = {};
}

bool H2Connection::respond(H2Stream& stream, bool body) {
    if (stream.closed || stream.responded) return false;
    stream.responded = true;
    stream.taken_at = std::chrono::steady_clock::now(); // the visitor's time to take it begins
    const nghttp2_nv* fields = stream.response.finish();
    nghttp2_data_provider provider{};
    provider.source.ptr = &stream;
    provider.read_callback = h2_body_reader();
    const int rv = nghttp2_submit_response(m_session, stream.id, fields, stream.response.size(), body ? &provider : nullptr);
    wake_writer();
    return rv == 0;
}

void H2Connection::answer_page(H2Stream& stream, int status, PageText body, const GateResult* result, int retry_after_seconds) {
    PageHead head{.status = status, .content_type = "text/html; charset=utf-8", .retry_after_seconds = retry_after_seconds,
                  .request_id = stream.access.request_id.view()};
    if (result) {
        head.set_cookie = result->set_cookie;
        if (result->status == status) {
            head.content_type = result->content_type;
            head.refresh_seconds = result->refresh_seconds;
            head.retry_after_seconds = result->retry_after_seconds;
            head.location = result->location;
        }
    }
    stream.page = body ? std::move(body) : own_page("");
    stream.out_view = *stream.page;
    stream.out_at = 0;
    stream.out_end = true;
    page_fields(stream.response, head, stream.out_view.size());
    stream.access.status = status;
    const bool head_request = stream.head.method == "HEAD";
    respond(stream, !head_request && !stream.out_view.empty());
}

void H2Connection::answer_error(H2Stream& stream, int status, std::string_view title, std::string_view text, const GateResult* result,
                                int retry_after_seconds) {
    answer_page(stream, status, own_page(error_page(status, title, text, stream.access.request_id.view())), result, retry_after_seconds);
}

void H2Connection::end_request(H2Stream& stream) {
    if (!stream.in_flight) return;
    stream.in_flight = false;
    finish_record(stream);
    m_shared.in_flight.fetch_sub(1, std::memory_order_acq_rel);
}

void H2Connection::note_decision(H2Stream& stream, const GateResult& result) {
    stream.access.decision = result.decision;
    stream.access.new_visitor = result.new_visitor;
    if (m_worker.access_log.enabled()) {
        if (result.zone) stream.access.zone = result.zone->name;
        if (result.room) stream.access.room = result.room->settings.name;
    }
}

bool H2Connection::decide(H2Stream& stream) {
    stream.in_flight = true;
    m_shared.in_flight.fetch_add(1, std::memory_order_acq_rel); // a drain waits for it
    m_requests.fetch_add(1, std::memory_order_relaxed);
    const EdgeOptions& options = m_shared.options;
    begin_record(stream);
    const net::MessageHead& request = stream.head;

    if (stream.fields.too_large()) {
        stream.access.decision = Decision::headers_too_large;
        answer_error(stream, 431, "Request header fields too large", "The request's headers are larger than this site accepts.");
        return false;
    }
    if (!usable_path(request.method, request.target)) {
        stream.access.decision = Decision::bad_request;
        answer_error(stream, 400, "Bad request", "The request's path does not start with '/'.");
        return false;
    }
    // Held by the stream until its line is written: the room and zone the Gate finds, and the
    // log's record of them, point into it.
    stream.snapshot = m_worker.current(m_shared.config);
    stream.decided_at = m_shared.clock.now();
    IncomingRequest incoming = describe_request(request, stream.cookies, m_peer, m_https, m_shared.trusted_proxies);
    incoming.request_id = stream.access.request_id.view();
    if (m_worker.access_log.enabled()) {
        // Only a trusted proxy's requests may name another client.
        if (m_trusted_proxy && incoming.client != m_peer) {
            stream.access.forwarded_client = address_text(incoming.client);
            stream.access.client = stream.access.forwarded_client;
        }
        stream.access.method.assign(incoming.method);
        assign_logged_target(stream.access.target, incoming.target);
        stream.access.host.assign(incoming.host);
        stream.access.referer.assign(incoming.referer);
        stream.access.user_agent.assign(incoming.user_agent);
    }
    if (request.method == "CONNECT") {
        stream.access.decision = Decision::method_not_allowed;
        answer_error(stream, 405, "Method Not Allowed", "This site is not a forward proxy.");
        return false;
    }
    if (request.framing == net::BodyFraming::length && options.max_request_body > 0 && request.content_length > options.max_request_body) {
        stream.access.decision = Decision::body_too_large;
        answer_error(stream, 413, "Request too large", "The request is larger than this site accepts.");
        return false;
    }
    GateResult& result = stream.result;
    try {
        const auto decision_start = std::chrono::steady_clock::now();
        m_worker.gate.handle(stream.snapshot, incoming, stream.decided_at, result);
        m_shared.analytics.decision_time().observe(std::chrono::steady_clock::now() - decision_start);
    } catch (const std::exception& error) {
        deciding_failed(stream, error);
    }
    note_decision(stream, result);
    if (result.action == GateResult::Action::verify_turnstile || result.action == GateResult::Action::proxy) return true;
    answer_page(stream, result.status, result.body, &result);
    return false;
}

void H2Connection::deciding_failed(H2Stream& stream, const std::exception& error) {
    util::log_error("edge", std::string("deciding a request failed: ") + error.what());
    GateResult& result = stream.result;
    result.reset();
    result.status = 500;
    result.decision = Decision::internal_error;
    result.body = own_page(error_page(500, "Something went wrong", "Please try again in a moment.", stream.access.request_id.view()));
}

net::Task<> H2Connection::serve_stream(std::shared_ptr<H2Stream> holder) {
    H2Stream& stream = *holder;
    struct Ending {
        H2Connection& connection;
        const std::shared_ptr<H2Stream>& holder;
        std::shared_ptr<bool> alive;
        ~Ending() {
            if (!*alive) return;
            connection.end_request(*holder);
            holder->running = false;
            if (holder->closed) connection.recycle(holder);
            --connection.m_running_streams;
            connection.update_phase();
            connection.m_done_signal.cancel();
        }
    } ending{*this, holder, m_alive};
    const Watched watched(m_worker.watches, stream.watch);
    const EdgeOptions& options = m_shared.options;
    GateResult& result = stream.result;
    if (result.action == GateResult::Action::verify_turnstile) {
        try {
            const Snapshot& snapshot = stream.snapshot;
            const IncomingRequest incoming = describe_request(stream.head, stream.cookies, m_peer, m_https, m_shared.trusted_proxies);
            const TokenInTarget token = std::move(*result.turnstile);
            const bool passed = co_await m_worker.turnstile.verify(token.token, address_text(incoming.client), stream.watch);
            result = m_worker.gate.answer_turnstile(snapshot, incoming, token, passed, m_shared.clock.now());
        } catch (const std::exception& error) {
            deciding_failed(stream, error);
        }
        note_decision(stream, result);
    }
    if (stream.closed) co_return;
    if (result.action == GateResult::Action::proxy) co_await proxy(holder, result, stream.decided_at);
    else answer_page(stream, result.status, result.body, &result);
    // The answer goes as the visitor takes it; a visitor that stops taking it loses the stream,
    // timed from the last byte it took: the signal wakes for other things too (its DATA).
    while (!stream.closed) {
        const auto left = stream.taken_at + options.origin.response_timeout - std::chrono::steady_clock::now();
        if (left <= std::chrono::steady_clock::duration::zero()) {
            nghttp2_submit_rst_stream(m_session, NGHTTP2_FLAG_NONE, stream.id, NGHTTP2_CANCEL);
            wake_writer();
            break;
        }
        co_await wait(stream.signal, left);
    }
}

net::Task<H2Connection::HeadRead> H2Connection::read_response_head(H2Stream& stream, origin::OriginConnection& origin, bool head_request) {
    using Step = origin::ResponseReader::Step;
    bool received = !origin.in.empty();
    stream.reader.begin(head_request);
    std::vector<std::string_view> pieces;
    while (true) {
        size_t consumed = 0;
        switch (stream.reader.read(origin.in.data(), origin.in.size(), consumed, pieces)) {
        case Step::head: co_return HeadRead::complete;
        case Step::interim: {
            // 103 Early Hints and the like go on to the visitor; 100 Continue does not (the edge
            // said it itself when the visitor asked).
            const net::MessageHead& interim = stream.reader.head();
            if (interim.status != 100 && !stream.closed) {
                ResponseFields fields;
                origin_fields(fields, interim, {}, false);
                const nghttp2_nv* nv = fields.finish(true);
                nghttp2_submit_headers(m_session, NGHTTP2_FLAG_NONE, stream.id, nullptr, nv, fields.size(), nullptr);
                wake_writer();
            }
            origin.in.consume(consumed);
            continue;
        }
        case Step::more: break;
        default: co_return HeadRead::invalid;
        }
        const auto [space, room] = origin.in.prepare(net::ReadBuffer::k_initial, net::k_max_response_head);
        error_code ec;
        const size_t got = co_await origin.read_some(asio::buffer(space, room), ec);
        if (ec) co_return received ? HeadRead::failed : HeadRead::nothing;
        received = true;
        origin.in.commit(got);
    }
}

net::Task<> H2Connection::upload(std::shared_ptr<H2Stream> holder, origin::OriginConnection& origin, bool chunked, H2Upload& state) {
    H2Stream& stream = *holder;
    const auto timeout = m_shared.options.origin.response_timeout;
    std::string sending;
    std::vector<asio::const_buffer> gather;
    char chunk_head[20];
    // The body's next bytes are awaited for the response timeout; while others wait under the
    // zone's cap, it must bring k_stream_buffer bytes within each k_stall_while_others_wait, as an
    // HTTP/1.1 upload must (proxy_exchange.cpp), or its origin connection goes to them.
    auto last_bytes = std::chrono::steady_clock::now();
    auto share_began = last_bytes;
    uint64_t share_bytes = 0;
    while (true) {
        if (state.stopping) {
            state.end = H2Upload::End::stopped;
            break;
        }
        if (stream.body_too_large) {
            state.end = H2Upload::End::too_large;
            break;
        }
        if (stream.closed) {
            state.end = H2Upload::End::visitor_closed;
            break;
        }
        if (stream.body_in.empty() && !stream.end_stream) {
            const auto now = std::chrono::steady_clock::now();
            auto until = last_bytes + timeout;
            if (state.cap && state.cap->has_waiters()) until = std::min(until, share_began + origin::ConnectionCap::k_stall_while_others_wait);
            if (now >= until) {
                state.end = H2Upload::End::visitor_too_slow;
                break;
            }
            // Looked at again within k_stall_check under a cap: somebody may start waiting meanwhile.
            const auto wait_for = state.cap ? std::min<std::chrono::steady_clock::duration>(until - now, k_stall_check) : until - now;
            co_await wait(stream.upload_signal, wait_for);
            continue;
        }
        last_bytes = std::chrono::steady_clock::now();
        share_bytes += stream.body_in.size();
        if (share_bytes >= k_stream_buffer) {
            share_bytes = 0;
            share_began = last_bytes;
        }
        // What has arrived goes on; meanwhile more may arrive into the emptied buffer.
        sending.swap(stream.body_in);
        stream.body_in.clear();
        const bool last = stream.end_stream;
        gather.clear();
        if (chunked && !sending.empty()) {
            gather.push_back(asio::buffer(chunk_head, format_chunk_head(chunk_head, sending.size())));
            gather.push_back(buffer_of(sending));
            gather.push_back(buffer_of(k_crlf));
        } else if (!sending.empty()) {
            gather.push_back(buffer_of(sending));
        }
        if (last && chunked) gather.push_back(buffer_of(k_last_chunk));
        if (!gather.empty()) {
            const auto writing_since = std::chrono::steady_clock::now();
            error_code ec;
            co_await origin.write(gather, ec);
            if (ec) {
                state.end = state.stopping ? H2Upload::End::stopped : H2Upload::End::origin_failed;
                break;
            }
            // The time the origin takes to read is not the visitor's.
            const auto wrote = std::chrono::steady_clock::now() - writing_since;
            share_began += wrote;
            last_bytes += wrote;
            if (!state.stopping) stream.watch.expire_in(timeout);
        }
        state.bytes += sending.size();
        // The origin took them: the visitor may send as many more.
        give_back(stream, sending.size());
        sending.clear();
        if (last) break;
    }
    // An unfinished body must never look finished to the origin: its connection closes.
    if (state.end != H2Upload::End::complete) origin.close();
    stream.access.bytes_in = state.bytes;
    state.finished = true;
    stream.signal.cancel();
}

net::Task<> H2Connection::stop_upload(H2Stream& stream, origin::OriginConnection& origin, H2Upload& state) {
    if (!state.running) co_return;
    if (!state.finished) {
        state.stopping = true;
        stream.upload_signal.cancel();
        error_code ignored;
        origin.tcp_socket().cancel(ignored);
    }
    while (!state.finished) co_await wait(stream.signal, std::chrono::milliseconds{100});
    state.running = false;
}

net::Task<> H2Connection::proxy(std::shared_ptr<H2Stream> holder, GateResult& result, util::TimePoint now) {
    H2Stream& stream = *holder;
    const EdgeOptions& options = m_shared.options;
    const auto timeout = options.origin.response_timeout;
    const net::MessageHead& request = stream.head;
    const bool head_request = request.method == "HEAD";
    // A request whose END_STREAM came in an empty DATA frame after its headers has no body after
    // all: the origin gets none, and the request may be sent again on a fresh connection as any
    // other without one. That frame may come a packet later (Node's client sends a GET so): a
    // request without a length whose body has not begun waits a moment for its first bytes or
    // its end — not one that expects 100 Continue, whose client waits for the edge.
    if (request.framing == net::BodyFraming::chunked && !stream.end_stream && stream.body_received == 0 &&
        !net::has_token(request.find("expect"), "100-continue"))
        co_await wait(stream.upload_signal, k_first_bytes_wait);
    if (stream.closed) co_return;
    const bool no_body = request.framing == net::BodyFraming::chunked && stream.end_stream && stream.body_received == 0;
    const net::BodyFraming framing = no_body ? net::BodyFraming::none : request.framing;

    std::string without_token;
    std::string_view target = request.target;
    if (result.room && target.find(k_turnstile_parameter) != std::string_view::npos)
        if (auto token = take_turnstile_token(target)) {
            without_token = std::move(token->target_without);
            target = without_token;
        }
    std::string head_out;
    write_forwarded_request(head_out, request,
                            ForwardedRequest{.target = target, .path_prefix = result.zone->origin.path_prefix, .client = m_peer_text,
                                             .https = m_https, .room_cookie = result.room ? std::string_view(result.room->cookie_name) : "",
                                             .framing = framing, .content_length = request.content_length, .upgrade = false,
                                             .request_id = stream.access.request_id.view()});
    const bool has_body = framing != net::BodyFraming::none;
    const bool expects_continue = has_body && !stream.end_stream && net::has_token(request.find("expect"), "100-continue");
    const bool replayable = safe_to_replay(request);

    origin::ZoneOrigin* const upstream = result.zone->upstream.get();
    const origin::OriginTarget destination{.url = result.zone->origin, .cap = upstream ? upstream->cap : k_no_cap,
                                           .queue_timeout = upstream ? upstream->queue_timeout : std::chrono::seconds{10}};
    std::unique_ptr<origin::OriginConnection> origin;
    H2Upload upload_state;
    HeadRead read = HeadRead::nothing;
    bool answered_early = false; // the answer's head came before the whole body had gone
    origin::OriginError connect_error = origin::OriginError::none;
    const auto asked_at = std::chrono::steady_clock::now();
    auto sent_at = asked_at;
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (destination.cap) wait_for_origin(stream, true);
        origin = co_await m_worker.origins.acquire(destination, stream.watch, connect_error, attempt == 0);
        wait_for_origin(stream, false);
        if (!origin) break;
        if (stream.closed) { // reset while it waited: the connection is clean, nothing was sent on it
            m_worker.origins.release(std::move(origin));
            stream.watch.origin = nullptr;
            co_return;
        }
        stream.watch.origin = &origin->tcp_socket();
        stream.watch.expire_in(timeout);
        sent_at = std::chrono::steady_clock::now();
        error_code ec;
        co_await origin->write(asio::buffer(head_out), ec);
        if (!ec && has_body) {
            if (expects_continue && !stream.closed) {
                ResponseFields fields;
                fields.add(":status", "100");
                nghttp2_submit_headers(m_session, NGHTTP2_FLAG_NONE, stream.id, nullptr, fields.finish(true), fields.size(), nullptr);
                wake_writer();
            }
            upload_state.running = true;
            upload_state.cap = destination.cap.get();
            asio::co_spawn(m_worker.io, upload(holder, *origin, framing == net::BodyFraming::chunked, upload_state), asio::detached);
        }
        read = ec ? HeadRead::nothing : co_await read_response_head(stream, *origin, head_request);
        answered_early = upload_state.running && !upload_state.finished;
        // A pooled connection the origin closed just now fails before any answer: once more on a
        // new one, when nothing of the body has gone and the request may be repeated.
        if (read != HeadRead::nothing || !origin->reused || !replayable || upload_state.running || stream.watch.expired || stream.closed)
            break;
        stream.watch.origin = nullptr;
        origin.reset();
    }

    if (read != HeadRead::complete) {
        const bool timed_out = stream.watch.expired || connect_error == origin::OriginError::timeout;
        if (origin) co_await stop_upload(stream, *origin, upload_state);
        stream.watch.origin = nullptr;
        const auto end = upload_state.end;
        if (stream.closed || end == H2Upload::End::visitor_closed) co_return;
        if (end == H2Upload::End::too_large) {
            stream.access.decision = Decision::body_too_large;
            co_return answer_error(stream, 413, "Request too large", "The request is larger than this site accepts.", &result);
        }
        if (end == H2Upload::End::visitor_too_slow) {
            stream.access.decision = Decision::request_timeout;
            co_return answer_error(stream, 408, "Request Timeout", "The request took too long to arrive.", &result);
        }
        if (connect_error == origin::OriginError::queue_timeout) {
            if (result.room) result.room->stats->record_origin_error(now, model::OriginErrorKind::timeout);
            co_return answer_error(stream, 503, "The site is busy", "Too many visitors are being served right now. Please try again in a moment.",
                                   &result, k_busy_retry_after_seconds);
        }
        const model::OriginErrorKind kind = connect_error == origin::OriginError::refused ? model::OriginErrorKind::refused
                                            : connect_error == origin::OriginError::tls   ? model::OriginErrorKind::tls
                                            : timed_out                                   ? model::OriginErrorKind::timeout
                                            : read == HeadRead::invalid                   ? model::OriginErrorKind::invalid
                                                                                          : model::OriginErrorKind::reset;
        record_origin_error(result, now, kind);
        if (timed_out)
            co_return answer_error(stream, 504, "The site is taking too long", "It did not answer in time. Please try again in a moment.", &result);
        co_return answer_error(stream, 502, "The site cannot be reached", "Please try again in a moment.", &result);
    }

    {
        const auto first_byte = std::chrono::steady_clock::now();
        const auto answered = first_byte - sent_at;
        const int status = stream.reader.head().status;
        if (upstream) upstream->stats.record_answer(status, std::chrono::duration_cast<util::Milliseconds>(answered));
        if (result.room)
            result.room->stats->record_origin_answer(now, status, std::chrono::duration_cast<util::Milliseconds>(first_byte - asked_at));
        stream.access.status = status;
        stream.access.origin_first_byte_us = std::chrono::duration_cast<std::chrono::microseconds>(answered).count();
    }
    const net::MessageHead& response = stream.reader.head();
    if (response.status == 101) { // a switch nobody asked for: no upgrade goes over HTTP/2
        co_await stop_upload(stream, *origin, upload_state);
        stream.watch.origin = nullptr;
        co_return answer_error(stream, 502, "The site cannot be reached", "Please try again in a moment.", &result);
    }

    std::string revoked_cookie;
    std::string_view set_cookie = result.set_cookie;
    if (result.room && result.room->settings.revoke_origin_command && waiting_room_command(response).find("revoke") != std::string_view::npos) {
        revoked_cookie = m_worker.gate.revoke(result, m_shared.clock.now());
        set_cookie = revoked_cookie;
    }
    const bool body = !head_request && response.framing != net::BodyFraming::none;
    origin_fields(stream.response, response, set_cookie, response.framing == net::BodyFraming::length || !body);
    const bool until_close = response.framing == net::BodyFraming::until_close;
    origin->in.consume(response.size);
    stream.out_end = !body;
    // The head goes once the bytes that came with it are known to start a valid body: a body
    // broken from its first bytes gets the gateway's answer rather than a reset stream.
    bool responded = !body;
    if (responded) respond(stream, body);

    using Step = origin::ResponseReader::Step;
    bool failed = false;
    bool invalid_before_head = false;
    bool complete = !body;
    std::vector<std::string_view> pieces;
    while (body) {
        pieces.clear();
        size_t consumed = 0;
        const Step step = stream.reader.read(origin->in.data(), origin->in.size(), consumed, pieces);
        if (step == Step::invalid) {
            failed = true;
            invalid_before_head = !responded;
            break;
        }
        if (!responded) {
            respond(stream, body);
            responded = true;
        }
        // What the visitor took goes before more comes: a visitor slower than the origin never
        // empties the buffer, which would otherwise keep the whole answer.
        if (stream.out_at >= k_answer_ahead) {
            stream.body_out.erase(0, stream.out_at);
            stream.out_at = 0;
        }
        for (const std::string_view piece : pieces) stream.body_out += piece;
        origin->in.consume(consumed);
        complete = step == Step::end;
        if (complete) {
            stream.out_end = true;
            resume(stream);
            break;
        }
        if (!pieces.empty()) resume(stream);
        // The visitor takes the answer at its pace: no more is read from the origin past a bound.
        // Not at others' expense, though: while visitors wait for a connection under the zone's
        // cap, a stream that leaves its answer untaken for k_stall_while_others_wait is reset and
        // its origin connection goes to them — one HTTP/2 connection whose window stays shut could
        // otherwise hold up to 100 of the cap's connections for the whole response timeout.
        // (Without a cap there is nobody to look for: one wait for the whole timeout.)
        const std::chrono::steady_clock::duration look_every = destination.cap ? std::chrono::steady_clock::duration{k_stall_check} : timeout;
        const auto stalled_since = std::chrono::steady_clock::now();
        while (!stream.closed && stream.out_pending() >= k_answer_ahead) {
            const auto stalled = std::chrono::steady_clock::now() - stalled_since;
            if (stalled >= timeout) break;
            if (stalled >= origin::ConnectionCap::k_stall_while_others_wait && destination.cap && destination.cap->has_waiters()) break;
            co_await wait(stream.signal, std::min(timeout - stalled, look_every));
        }
        if (stream.closed || stream.out_pending() >= k_answer_ahead) {
            failed = true;
            break;
        }
        if (step == Step::body) continue;
        const auto [space, room] = origin->in.prepare(k_stream_buffer, k_stream_buffer);
        stream.watch.expire_in(timeout);
        error_code ec;
        const size_t got = co_await origin->read_some(asio::buffer(space, room), ec);
        if (ec) {
            // (A clean end only: a reset, or a TLS stream without its close_notify, may have cut it short.)
            if (until_close && ec == asio::error::eof && !stream.watch.expired && !stream.closed && stream.reader.closed() == Step::end)
                continue;
            failed = true;
            break;
        }
        origin->in.commit(got);
    }
    if (invalid_before_head) {
        co_await stop_upload(stream, *origin, upload_state);
        stream.watch.origin = nullptr;
        record_origin_error(result, now, model::OriginErrorKind::invalid);
        if (!stream.closed) answer_error(stream, 502, "The site cannot be reached", "Please try again in a moment.", &result);
        co_return;
    }
    if (failed && !stream.closed) {
        // Cut short: the visitor sees a stream that stops, never a well-framed wrong answer.
        nghttp2_submit_rst_stream(m_session, NGHTTP2_FLAG_NONE, stream.id, NGHTTP2_INTERNAL_ERROR);
        wake_writer();
    }
    co_await stop_upload(stream, *origin, upload_state);
    const bool upload_complete = upload_state.end == H2Upload::End::complete;
    stream.watch.origin = nullptr;
    // The connection carries another request only from a clean boundary with nothing unread, and
    // never after a request with a body: an origin that answers without reading a body may read it
    // later as the start of a request of its own, completed by the next one sent on the
    // connection (a CL.0 desync), whose answer would reach that request's visitor.
    if (!failed && complete && upload_complete && !answered_early && !has_body && stream.reader.reusable(origin->in.size()))
        m_worker.origins.release(std::move(origin));
}

} // namespace wr::edge
