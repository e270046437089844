// Forwarding an admitted request (the router): the head rewritten as bytes, the body streamed to
// the origin beside the answer (so an origin that answers before reading it all is heard), the
// answer's head edited as bytes and its body streamed back through a bounded buffer, re-framed
// by the edge: each read of the origin's body is written to the visitor at once (SSE, long
// polls), and no response is too large. An idle origin — no byte for --origin-timeout — fails
// the exchange; so does a visitor whose body stops arriving for as long.
#include <array>

#include "edge/forward_head.h"
#include "edge/page_response.h"
#include "origin/registry.h"
#include "edge/visitor_connection.h"

namespace wr::edge {
namespace {

constexpr std::string_view k_crlf = "\r\n";
constexpr std::string_view k_last_chunk = "0\r\n\r\n";
constexpr std::string_view k_continue = "HTTP/1.1 100 Continue\r\n\r\n";
// A visitor whose request waited out the zone's origin queue may try again this much later.
constexpr int k_busy_retry_after_seconds = 5;
const std::shared_ptr<origin::ConnectionCap> k_no_cap;

asio::const_buffer buffer_of(std::string_view text) { return asio::buffer(text.data(), text.size()); }

// Appends `pieces` to `gather`, framed as one chunk when `chunked`; returns how many bytes they hold.
uint64_t gather_pieces(std::vector<asio::const_buffer>& gather, const std::vector<std::string_view>& pieces, bool chunked,
                       char* chunk_head) {
    uint64_t bytes = 0;
    for (const std::string_view piece : pieces) bytes += piece.size();
    if (bytes == 0) return 0;
    if (chunked) gather.push_back(asio::buffer(chunk_head, format_chunk_head(chunk_head, bytes)));
    for (const std::string_view piece : pieces) gather.push_back(buffer_of(piece));
    if (chunked) gather.push_back(buffer_of(k_crlf));
    return bytes;
}

} // namespace

template <typename Stream>
net::Task<typename VisitorConnection<Stream>::ResponseHeadRead> VisitorConnection<Stream>::read_response_head(origin::OriginConnection& origin,
                                                                                                              bool head_request) {
    using Step = origin::ResponseReader::Step;
    bool received = !origin.in.empty();
    m_reader.begin(head_request);
    while (true) {
        size_t consumed = 0;
        m_pieces.clear();
        switch (m_reader.read(origin.in.data(), origin.in.size(), consumed, m_pieces)) {
        case Step::head: co_return ResponseHeadRead::complete; // consumed once its rewrite is sent
        case Step::interim: {
            // An interim answer (103 Early Hints, 102…) goes on to an HTTP/1.1 visitor; 100 Continue
            // does not: the edge answered the visitor's Expect itself.
            const net::MessageHead& interim = m_reader.head();
            if (interim.status != 100 && m_version_minor == 1) {
                std::string out;
                write_interim_response(out, interim);
                error_code ec;
                co_await asio::async_write(m_stream, asio::buffer(out), net::awaitable(ec));
                if (ec) co_return ResponseHeadRead::failed;
            }
            origin.in.consume(consumed);
            continue;
        }
        case Step::more: break;
        default: co_return ResponseHeadRead::invalid;
        }
        const auto [space, room] = origin.in.prepare(net::ReadBuffer::k_initial, net::k_max_response_head);
        error_code ec;
        const size_t got = co_await origin.read_some(asio::buffer(space, room), ec);
        if (ec) co_return received ? ResponseHeadRead::failed : ResponseHeadRead::nothing;
        received = true;
        origin.in.commit(got);
    }
}

template <typename Stream>
net::Task<bool> VisitorConnection<Stream>::answer_origin_failure(const GateResult& result, int status, std::string_view title,
                                                                 std::string_view text, bool keep_alive, bool head_request,
                                                                 int retry_after_seconds) {
    const int version = m_version_minor == 0 ? 10 : 11;
    const std::string body = error_page(status, title, text, m_access.request_id.view());
    write_page_head(m_out, static_cast<unsigned>(version),
                    PageHead{.status = status, .content_type = "text/html; charset=utf-8", .retry_after_seconds = retry_after_seconds,
                             .set_cookie = result.set_cookie, .request_id = m_access.request_id.view()},
                    body.size(), keep_alive);
    m_watch.expire_in(m_shared.options.origin.response_timeout);
    error_code ec;
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(m_out), asio::buffer(body.data(), head_request ? 0 : body.size())};
    co_await asio::async_write(m_stream, buffers, net::awaitable(ec));
    m_access.status = status;
    if (!ec) m_access.bytes_out += asio::buffer_size(buffers);
    co_return !ec && keep_alive;
}

template <typename Stream>
net::Task<> VisitorConnection<Stream>::upload_body(origin::OriginConnection& origin, net::BodyFraming framing, const origin::ConnectionCap* cap) {
    Upload& upload = m_upload;
    const uint64_t limit = m_shared.options.max_request_body;
    const auto timeout = m_shared.options.origin.response_timeout;
    // The visitor's next bytes are awaited for the response timeout; while others wait under the
    // zone's cap, a body that trickles (a byte now and then, or none after `Expect:
    // 100-continue`) gives its origin connection up as a reader who takes nothing does.
    const auto await_visitor = [&] {
        m_watch.expire_in(timeout);
        if (cap) m_watch.expire_sooner_while(cap->waiting_count(), upload.share_began + origin::ConnectionCap::k_stall_while_others_wait);
    };
    try {
        while (true) {
            upload.pieces.clear();
            size_t consumed = 0;
            net::BodyStatus status = net::BodyStatus::more;
            if (!m_in.empty()) status = m_request.parse_body(m_in.data(), m_in.size(), consumed, upload.pieces);
            if (status == net::BodyStatus::invalid) {
                upload.end = Upload::End::invalid;
                break;
            }
            upload.gather.clear();
            upload.bytes += gather_pieces(upload.gather, upload.pieces, framing == net::BodyFraming::chunked, upload.chunk_head);
            if (limit > 0 && upload.bytes > limit) {
                upload.end = Upload::End::too_large;
                break;
            }
            if (status == net::BodyStatus::complete && framing == net::BodyFraming::chunked) upload.gather.push_back(buffer_of(k_last_chunk));
            if (!upload.gather.empty()) {
                // The time the origin takes to read is not the visitor's: it moves the share's start on.
                if (!upload.stopping) m_watch.expire_in(timeout);
                const auto writing_since = std::chrono::steady_clock::now();
                error_code ec;
                co_await origin.write(upload.gather, ec);
                upload.share_began += std::chrono::steady_clock::now() - writing_since;
                if (ec) {
                    upload.end = upload.stopping ? Upload::End::stopped : Upload::End::origin_failed;
                    break;
                }
            }
            m_in.consume(consumed);
            if (status == net::BodyStatus::complete) break;
            const auto [space, room] = m_in.prepare(k_stream_buffer, k_stream_buffer);
            if (!upload.stopping) await_visitor();
            error_code ec;
            upload.waiting_for_visitor = true;
            const size_t got = co_await m_stream.async_read_some(asio::buffer(space, room), net::awaitable(ec));
            upload.waiting_for_visitor = false;
            if (ec) {
                // The deadline passed while the body was awaited: the visitor is too slow (the
                // answer's side stops the upload only after that, when it sees the deadline too).
                upload.end = m_watch.expired ? Upload::End::visitor_too_slow
                             : upload.stopping ? Upload::End::stopped
                                               : Upload::End::visitor_closed;
                break;
            }
            m_in.commit(got);
            upload.share_bytes += got;
            if (upload.share_bytes >= k_stream_buffer) {
                upload.share_bytes = 0;
                upload.share_began = std::chrono::steady_clock::now();
            }
        }
    } catch (const std::exception&) {
        upload.end = Upload::End::origin_failed;
    }
    // An unfinished body must never look finished to the origin: its connection closes.
    if (upload.end != Upload::End::complete) origin.close();
    m_access.bytes_in = upload.bytes;
    upload.finished = true;
    m_signal.cancel();
}

template <typename Stream>
void VisitorConnection<Stream>::start_upload(origin::OriginConnection& origin, net::BodyFraming framing, const origin::ConnectionCap* cap) {
    m_upload.running = true;
    m_upload.share_began = std::chrono::steady_clock::now();
    m_upload.share_bytes = 0;
    m_upload.finished = false;
    m_upload.stopping = false;
    m_upload.waiting_for_visitor = false;
    m_upload.end = Upload::End::complete;
    m_upload.bytes = 0;
    asio::co_spawn(m_worker.io, upload_body(origin, framing, cap), asio::detached);
}

template <typename Stream> net::Task<> VisitorConnection<Stream>::wait_for_upload() {
    while (m_upload.running && !m_upload.finished) {
        m_signal.expires_at(net::SteadyTime::max());
        error_code ignored;
        co_await m_signal.async_wait(net::awaitable(ignored));
    }
    m_upload.running = false;
}

template <typename Stream> net::Task<> VisitorConnection<Stream>::stop_upload(origin::OriginConnection& origin) {
    if (m_upload.running && !m_upload.finished) {
        m_upload.stopping = true;
        error_code ignored;
        net::lowest_layer(m_stream).cancel(ignored);
        origin.tcp_socket().cancel(ignored);
    }
    co_await wait_for_upload();
}

template <typename Stream> net::Task<bool> VisitorConnection<Stream>::proxy(GateResult& result, util::TimePoint now, bool keep_alive) {
    const EdgeOptions& options = m_shared.options;
    const auto timeout = options.origin.response_timeout;
    const net::MessageHead& request = m_request.head();
    const bool head_request = request.method == "HEAD";
    const bool upgrade = request.upgrade;
    const net::BodyFraming framing = request.framing;
    const uint64_t length = request.content_length;
    m_version_minor = request.version_minor;
    m_upload.running = false;
    m_upload.end = Upload::End::complete;

    // A Turnstile token that was not needed (the visitor got in meanwhile) is not the origin's business.
    std::string without_token;
    std::string_view target = request.target;
    if (result.room && target.find(k_turnstile_parameter) != std::string_view::npos)
        if (auto token = take_turnstile_token(target)) {
            without_token = std::move(token->target_without);
            target = without_token;
        }
    write_forwarded_request(m_out, request,
                            ForwardedRequest{.target = target, .path_prefix = result.zone->origin.path_prefix, .client = m_peer_text,
                                             .https = m_https, .room_cookie = result.room ? std::string_view(result.room->cookie_name) : "",
                                             .framing = framing, .content_length = length, .upgrade = upgrade,
                                             .request_id = m_access.request_id.view()});
    const bool expects_continue = m_version_minor == 1 && framing != net::BodyFraming::none && net::has_token(request.find("expect"), "100-continue");
    const bool replayable = safe_to_replay(request);
    m_in.consume(request.size); // the head's views are not used past this point
    // A body that is here already goes with the head (and can be sent again on a fresh connection);
    // any other streams beside the answer.
    const bool body_here = framing == net::BodyFraming::none || (framing == net::BodyFraming::length && m_in.size() >= length);
    const size_t body_here_bytes = framing == net::BodyFraming::length && body_here ? static_cast<size_t>(length) : 0;

    origin::ZoneOrigin* const upstream = result.zone->upstream.get();
    const origin::OriginTarget destination{.url = result.zone->origin, .cap = upstream ? upstream->cap : k_no_cap,
                                      .queue_timeout = upstream ? upstream->queue_timeout : std::chrono::seconds{10}};
    std::unique_ptr<origin::OriginConnection> origin;
    ResponseHeadRead read = ResponseHeadRead::nothing;
    bool answered_early = false; // the answer's head came before the whole body had gone
    origin::OriginError connect_error = origin::OriginError::none;
    // The room's measure of its origin starts here, before any wait for a connection under the
    // zone's cap: a full cap is the origin at its capacity, and the room's visitors wait on it
    // (the origin guard must see that). The zone's own measure starts when the request is sent.
    const auto asked_at = std::chrono::steady_clock::now();
    auto sent_at = asked_at;
    for (int attempt = 0; attempt < 2; ++attempt) {
        origin = co_await m_worker.origins.acquire(destination, m_watch, connect_error, attempt == 0);
        if (!origin) break;
        m_watch.origin = &origin->tcp_socket();
        m_watch.expire_in(timeout);
        sent_at = std::chrono::steady_clock::now();
        error_code ec;
        if (body_here) {
            const std::array<asio::const_buffer, 2> buffers{asio::buffer(m_out), asio::buffer(m_in.data(), body_here_bytes)};
            co_await origin->write(buffers, ec);
        } else {
            co_await origin->write(asio::buffer(m_out), ec);
        }
        if (!ec && !body_here) {
            if (expects_continue) co_await asio::async_write(m_stream, buffer_of(k_continue), net::awaitable(ec));
            if (!ec) start_upload(*origin, framing, upstream ? upstream->cap.get() : nullptr);
        }
        read = ec ? ResponseHeadRead::nothing : co_await read_response_head(*origin, head_request);
        answered_early = m_upload.running && !m_upload.finished;
        // A pooled connection the origin closed just now fails before any answer: once more on a
        // new one, when nothing of the body has streamed and the request may be repeated.
        if (read != ResponseHeadRead::nothing || !origin->reused || !replayable || m_upload.running || m_watch.expired) break;
        m_watch.origin = nullptr;
        origin.reset();
    }
    if (body_here_bytes > 0) m_in.consume(body_here_bytes);
    if (body_here) m_access.bytes_in = body_here_bytes;

    if (read != ResponseHeadRead::complete) {
        // No answer to pass on: wr answers with its own page, which keeps the visitor's cookie (an
        // admitted visitor holds the place they were given, and tries again).
        const bool timed_out = m_watch.expired || connect_error == origin::OriginError::timeout;
        if (origin) co_await stop_upload(*origin);
        m_watch.origin = nullptr;
        const auto end = m_upload.end;
        // A body that streamed (or was to) is not all read: the connection cannot go on in step.
        if (!body_here) keep_alive = false;
        if (end == Upload::End::visitor_closed) co_return false;
        if (end == Upload::End::too_large)
            co_return co_await answer_error(413, "Request too large", "The request is larger than this site accepts.", false, head_request);
        if (end == Upload::End::invalid) co_return co_await answer_error(400, "Bad Request", "The request's body is not valid.", false, head_request);
        if (end == Upload::End::visitor_too_slow)
            co_return co_await answer_error(408, "Request Timeout", "The request took too long to arrive.", false, head_request);
        if (connect_error == origin::OriginError::queue_timeout) {
            // The zone counts it among its cap's timeouts; for the room it is a proxied request that failed.
            if (result.room) result.room->stats->record_origin_error(now, model::OriginErrorKind::timeout);
            co_return co_await answer_origin_failure(result, 503, "The site is busy",
                                                     "Too many visitors are being served right now. Please try again in a moment.",
                                                     keep_alive, head_request, k_busy_retry_after_seconds);
        }
        record_origin_error(result, now,
                            connect_error == origin::OriginError::refused ? model::OriginErrorKind::refused
                            : connect_error == origin::OriginError::tls   ? model::OriginErrorKind::tls
                            : timed_out                                   ? model::OriginErrorKind::timeout
                            : read == ResponseHeadRead::invalid           ? model::OriginErrorKind::invalid
                                                                          : model::OriginErrorKind::reset);
        if (timed_out)
            co_return co_await answer_origin_failure(result, 504, "The site is taking too long",
                                                     "It did not answer in time. Please try again in a moment.", keep_alive, head_request);
        co_return co_await answer_origin_failure(result, 502, "The site cannot be reached", "Please try again in a moment.", keep_alive,
                                                 head_request);
    }

    {
        const auto first_byte = std::chrono::steady_clock::now();
        const auto answered = first_byte - sent_at;
        const int status = m_reader.head().status;
        if (upstream) upstream->stats.record_answer(status, std::chrono::duration_cast<util::Milliseconds>(answered));
        if (result.room) result.room->stats->record_origin_answer(now, status, std::chrono::duration_cast<util::Milliseconds>(first_byte - asked_at));
        m_access.status = status;
        m_access.origin_first_byte_us = std::chrono::duration_cast<std::chrono::microseconds>(answered).count();
    }
    const net::MessageHead& response = m_reader.head();

    if (response.status == 101) {
        if (!upgrade) { // a switch nobody asked for
            co_await stop_upload(*origin);
            m_watch.origin = nullptr;
            co_return co_await answer_error(502, "The site cannot be reached", "Please try again in a moment.", false, head_request);
        }
        write_visitor_response(m_out, response, VisitorResponse{.version_minor = m_version_minor, .set_cookie = result.set_cookie});
        origin->in.consume(response.size);
        m_watch.expire_in(timeout);
        error_code ec;
        co_await asio::async_write(m_stream, asio::buffer(m_out), net::awaitable(ec));
        if (!ec) m_access.bytes_out += m_out.size();
        if (!ec) co_await tunnel(*origin);
        m_watch.origin = nullptr;
        co_return false;
    }

    // The origin's revoke command is acted on when the room allows it, and never passed on.
    std::string revoked_cookie;
    std::string_view set_cookie = result.set_cookie;
    if (result.room && result.room->settings.revoke_origin_command && waiting_room_command(response).find("revoke") != std::string_view::npos) {
        revoked_cookie = m_worker.gate.revoke(result, m_shared.clock.now());
        set_cookie = revoked_cookie;
    }
    // The edge frames what it sends: the origin's length as it is, anything else chunked for
    // HTTP/1.1 visitors, or to the close for HTTP/1.0 ones.
    net::BodyFraming out = response.framing;
    if (out == net::BodyFraming::chunked || out == net::BodyFraming::until_close) out = m_version_minor == 1 ? net::BodyFraming::chunked : net::BodyFraming::until_close;
    if (out == net::BodyFraming::until_close) keep_alive = false;
    write_visitor_response(m_out, response,
                           VisitorResponse{.version_minor = m_version_minor, .set_cookie = set_cookie, .framing = out,
                                           .content_length = response.content_length, .keep_alive = keep_alive});
    const bool until_close = response.framing == net::BodyFraming::until_close;
    origin->in.consume(response.size);

    // The body: each read from the origin is written to the visitor before the next read.
    using Step = origin::ResponseReader::Step;
    bool head_sent = false;
    bool failed = false;
    bool invalid_before_head = false;
    bool complete = false;
    const bool chunked = out == net::BodyFraming::chunked;
    while (true) {
        m_pieces.clear();
        size_t consumed = 0;
        const Step step = m_reader.read(origin->in.data(), origin->in.size(), consumed, m_pieces);
        if (step == Step::invalid) {
            failed = true;
            invalid_before_head = !head_sent;
            break;
        }
        complete = step == Step::end;
        m_gather.clear();
        if (!head_sent) m_gather.push_back(asio::buffer(m_out));
        gather_pieces(m_gather, m_pieces, chunked, m_chunk_head);
        if (complete && chunked) m_gather.push_back(buffer_of(k_last_chunk));
        if (!m_gather.empty()) {
            m_watch.expire_in(timeout);
            // Not at others' expense: while visitors wait for a connection under the zone's cap, a
            // visitor who leaves this for k_stall_while_others_wait loses the answer, and its
            // origin connection goes to them.
            if (upstream && upstream->cap)
                m_watch.expire_sooner_while(upstream->cap->waiting_count(),
                                            std::chrono::steady_clock::now() + origin::ConnectionCap::k_stall_while_others_wait);
            error_code ec;
            co_await asio::async_write(m_stream, m_gather, net::awaitable(ec));
            m_watch.contended = nullptr; // the cap lives while this exchange's origin connection does, no longer
            if (ec) {
                failed = true;
                break;
            }
            m_access.bytes_out += asio::buffer_size(m_gather);
            head_sent = true;
        }
        origin->in.consume(consumed);
        if (complete) break;
        if (step == Step::body) continue;
        const auto [space, room] = origin->in.prepare(k_stream_buffer, k_stream_buffer);
        m_watch.expire_in(timeout);
        error_code ec;
        const size_t got = co_await origin->read_some(asio::buffer(space, room), ec);
        if (ec) {
            // The end of a body that runs to the close — a clean one: a reset, or a TLS stream that
            // ends without its close_notify, may have cut it short. Anything cut short is a failure,
            // which the visitor sees as a response that stops (never a well-framed wrong one).
            if (until_close && ec == asio::error::eof && !m_watch.expired && m_reader.closed() == Step::end) continue;
            failed = true;
            break;
        }
        origin->in.commit(got);
    }

    // The origin answered before reading the whole body: the rest is not sent, and neither
    // connection can go on in step.
    const bool upload_unfinished = m_upload.running && !m_upload.finished;
    if (upload_unfinished) keep_alive = false;
    co_await stop_upload(*origin);
    const bool upload_complete = m_upload.end == Upload::End::complete;
    m_watch.origin = nullptr;
    // The connection carries another visitor's request only from a clean boundary with nothing
    // unread (origin/response_reader.h), and never after a request with a body: sent, it may still
    // sit unread at the origin, which can answer without reading it and take it later for the start
    // of a request of its own, completed by the next visitor's (a CL.0 desync), whose answer would
    // be that visitor's. In any doubt it closes.
    const bool had_body = framing != net::BodyFraming::none;
    if (!failed && complete && upload_complete && !answered_early && !had_body && m_reader.reusable(origin->in.size()))
        m_worker.origins.release(std::move(origin));
    if (invalid_before_head && m_upload.end != Upload::End::visitor_closed) {
        // A body broken from its first bytes, which came with the head: nothing has gone to the
        // visitor yet, so it gets the gateway's answer rather than a connection that just closes.
        record_origin_error(result, now, model::OriginErrorKind::invalid);
        co_return co_await answer_origin_failure(result, 502, "The site cannot be reached", "Please try again in a moment.", false,
                                                 head_request);
    }
    if (failed || !upload_complete) co_return false;
    co_return keep_alive;
}

// The members above, for both kinds of visitor stream (the class itself is instantiated in
// visitor_connection.cpp).
#define WR_INSTANTIATE(Stream)                                                                                                 \
    template net::Task<bool> VisitorConnection<Stream>::proxy(GateResult&, util::TimePoint, bool);                                  \
    template net::Task<VisitorConnection<Stream>::ResponseHeadRead> VisitorConnection<Stream>::read_response_head(origin::OriginConnection&, \
                                                                                                             bool);             \
    template net::Task<> VisitorConnection<Stream>::upload_body(origin::OriginConnection&, net::BodyFraming, const origin::ConnectionCap*); \
    template void VisitorConnection<Stream>::start_upload(origin::OriginConnection&, net::BodyFraming, const origin::ConnectionCap*);      \
    template net::Task<> VisitorConnection<Stream>::stop_upload(origin::OriginConnection&);                                                 \
    template net::Task<> VisitorConnection<Stream>::wait_for_upload();                                                       \
    template net::Task<bool> VisitorConnection<Stream>::answer_origin_failure(const GateResult&, int, std::string_view,         \
                                                                              std::string_view, bool, bool, int);
WR_INSTANTIATE(net::Socket)
WR_INSTANTIATE(net::TlsSocket)
#undef WR_INSTANTIATE

} // namespace wr::edge
