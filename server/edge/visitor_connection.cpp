// A visitor's connection: the request loop, reading heads, the Gate's decision and wr's own pages.
#include "edge/visitor_connection.h"

#include <array>
#include <charconv>

#include "analytics/prometheus.h"
#include "edge/incoming_request.h"
#include "edge/page_response.h"
#include "util/log.h"
#include "util/scoped_count.h"

namespace wr::edge {
namespace {

// What an HTTP/2 client with prior knowledge sends first (RFC 9113 §3.4). To an HTTP/1.1 parser
// it is a request for "*" with method PRI and version 2.0, which no HTTP/1.1 client sends.
constexpr std::string_view k_http2_client_preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// A head counted in the thread's HeadShare from its first byte until it is whole or the
// connection ends, however read_head ends. A trusted proxy's connections are not counted: every
// visitor behind it shares its address.
class HeadTurn {
public:
    HeadTurn(HeadShare& share, const queue::ClientAddress& peer, bool trusted_proxy)
        : m_share(share), m_peer(peer), m_trusted_proxy(trusted_proxy) {}
    ~HeadTurn() {
        if (m_counted) m_share.end(m_peer);
    }
    HeadTurn(const HeadTurn&) = delete;
    HeadTurn& operator=(const HeadTurn&) = delete;
    bool begin() { return m_trusted_proxy || (m_counted = m_share.try_begin(m_peer)); }

private:
    HeadShare& m_share;
    const queue::ClientAddress& m_peer;
    bool m_trusted_proxy;
    bool m_counted = false;
};

} // namespace

size_t format_chunk_head(char* out, uint64_t size) {
    const auto end = std::to_chars(out, out + 16, size, 16).ptr;
    end[0] = '\r';
    end[1] = '\n';
    return static_cast<size_t>(end + 2 - out);
}

std::string error_page(int status, std::string_view title, std::string_view text, std::string_view request_id) {
    return "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, "
           "initial-scale=1\"><title>" + std::to_string(status) + " " + std::string(title) + "</title><style>body{font:16px/1.5 "
           "system-ui,sans-serif;display:grid;min-height:90vh;place-items:center;text-align:center}</style><main><h1>" +
           std::string(title) + "</h1><p>" + std::string(text) + "</p>" + request_id_line(request_id) + "</main></html>\n";
}

template <typename Stream>
VisitorConnection<Stream>::VisitorConnection(Worker& worker, const EdgeShared& shared, Stream& stream, queue::ClientAddress peer,
                                             bool https)
    : m_worker(worker), m_shared(shared), m_stream(stream), m_peer(peer), m_peer_text(address_text(peer)), m_https(https),
      m_trusted_proxy(shared.trusted_proxies.contains(peer)), m_signal(worker.io.get_executor()) {
    if constexpr (k_plain) m_preface_possible = shared.options.h2c;
    m_watch.visitor = &net::lowest_layer(stream);
    m_worker.watches.add(m_watch);
}

template <typename Stream> VisitorConnection<Stream>::~VisitorConnection() { m_worker.watches.remove(m_watch); }

template <typename Stream> typename VisitorConnection<Stream>::Preface VisitorConnection<Stream>::sniff_preface() {
    const std::string_view seen = m_in.view().substr(0, k_http2_client_preface.size());
    if (!k_http2_client_preface.starts_with(seen)) {
        m_preface_possible = false; // HTTP/1, for the rest of the connection
        return Preface::not_it;
    }
    return seen.size() == k_http2_client_preface.size() ? Preface::whole : Preface::partial;
}

template <typename Stream> net::Task<typename VisitorConnection<Stream>::HeadRead> VisitorConnection<Stream>::read_head() {
    const EdgeOptions& options = m_shared.options;
    m_request.begin();
    // Between requests with nothing buffered the connection is idle: the first to go when
    // descriptors run short or the connection cap is reached, closed after --idle-timeout. Once
    // a head has begun, it must be whole within --header-timeout; the access log times the
    // request from there too (as nginx's $request_time does), so one clock read serves both.
    bool begun = !m_in.empty();
    HeadTurn turn(m_worker.heads, m_peer, m_trusted_proxy);
    if (begun) {
        m_head_started = std::chrono::steady_clock::now();
        if (!turn.begin()) co_return HeadRead::over_share;
        m_watch.expire_at(m_head_started + options.header_timeout);
    } else {
        m_watch.expire_in(options.idle_timeout);
        m_in.release_if_empty();
        m_worker.watches.set_idle(m_watch, true);
    }
    while (true) {
        // --edge-h2c: the first bytes are not parsed as HTTP/1 while they may be HTTP/2's preface.
        Preface preface = Preface::not_it;
        if constexpr (k_plain)
            if (m_preface_possible && !m_in.empty()) preface = sniff_preface();
        if (preface == Preface::whole) {
            m_h2c_preface = true;
            co_return HeadRead::h2c_preface;
        }
        if (!m_in.empty() && preface == Preface::not_it) {
            switch (m_request.parse_head(m_in.data(), std::min(m_in.size(), net::k_max_request_head))) {
            case net::HeadStatus::complete: co_return HeadRead::complete;
            case net::HeadStatus::invalid: co_return HeadRead::invalid;
            case net::HeadStatus::too_many_headers: co_return HeadRead::too_large;
            case net::HeadStatus::unsupported_version: co_return HeadRead::unsupported_version;
            case net::HeadStatus::incomplete:
                if (m_in.size() >= net::k_max_request_head) co_return HeadRead::too_large;
                break;
            }
        }
        const auto [space, room] = m_in.prepare(net::ReadBuffer::k_initial, net::k_max_request_head);
        error_code ec;
        const size_t received = co_await m_stream.async_read_some(asio::buffer(space, room), net::awaitable(ec));
        if (ec) co_return begun && m_watch.expired ? HeadRead::timed_out : HeadRead::closed;
        m_in.commit(received);
        if (!begun) {
            begun = true;
            m_worker.watches.set_idle(m_watch, false);
            m_head_started = std::chrono::steady_clock::now();
            if (!turn.begin()) co_return HeadRead::over_share;
            m_watch.expire_at(m_head_started + options.header_timeout);
        }
    }
}

template <typename Stream>
net::Task<bool> VisitorConnection<Stream>::answer(int status, std::string_view body, bool keep_alive, bool head_request,
                                             const GateResult* result) {
    const int version = m_request.head().version_minor == 0 ? 10 : 11;
    PageHead head{.status = status, .content_type = "text/html; charset=utf-8", .request_id = m_access.request_id.view()};
    if (result)
        head = PageHead{.status = result->status, .content_type = result->content_type, .refresh_seconds = result->refresh_seconds,
                        .retry_after_seconds = result->retry_after_seconds, .location = result->location,
                        .set_cookie = result->set_cookie, .request_id = m_access.request_id.view()};
    // The head in the connection's buffer, the page (often the Gate's cached copy) beside it: one write, no copy.
    write_page_head(m_out, static_cast<unsigned>(version), head, body.size(), keep_alive);
    m_watch.expire_in(m_shared.options.origin.response_timeout);
    error_code ec;
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(m_out), asio::buffer(body.data(), head_request ? 0 : body.size())};
    co_await asio::async_write(m_stream, buffers, net::awaitable(ec));
    m_access.status = head.status;
    if (!ec) m_access.bytes_out += asio::buffer_size(buffers);
    co_return !ec && keep_alive;
}

template <typename Stream>
net::Task<bool> VisitorConnection<Stream>::answer_error(int status, std::string_view title, std::string_view text, bool keep_alive,
                                                   bool head_request) {
    co_return co_await answer(status, error_page(status, title, text, m_access.request_id.view()), keep_alive, head_request);
}

template <typename Stream> void VisitorConnection<Stream>::begin_record(bool head_complete, util::TimePoint now) {
    const bool logging = m_worker.access_log.enabled();
    m_access.begin(now, m_head_started);
    const net::MessageHead& request = m_request.head();
    if (head_complete && request.version_minor == 0) m_access.protocol = "HTTP/1.0";
    // The id is made for every request: the origin and wr's own pages get it, logged or not. A
    // proxy the operator trusts may have given one.
    std::string_view forwarded;
    if (head_complete && !m_shared.trusted_proxies.empty() && m_shared.trusted_proxies.contains(m_peer))
        forwarded = request.find("x-request-id");
    m_worker.request_ids.take_or_make(forwarded, m_access.request_id);
    if (logging) m_access.client = m_peer_text;
}

template <typename Stream> void VisitorConnection<Stream>::record_request(const IncomingRequest& incoming) {
    if (!m_worker.access_log.enabled()) return;
    // Only a trusted proxy's requests may name another client (and the comparison is a call).
    if (m_trusted_proxy && incoming.client != m_peer) {
        m_access.forwarded_client = address_text(incoming.client);
        m_access.client = m_access.forwarded_client;
    }
    m_access.method.assign(incoming.method);
    assign_logged_target(m_access.target, incoming.target);
    m_access.host.assign(incoming.host);
    m_access.referer.assign(incoming.referer);
    m_access.user_agent.assign(incoming.user_agent);
}

template <typename Stream> void VisitorConnection<Stream>::record_decision(const GateResult& result) {
    m_access.decision = result.decision;
    m_access.new_visitor = result.new_visitor;
    if (!m_worker.access_log.enabled()) return;
    if (result.zone) m_access.zone = result.zone->name;
    if (result.room) m_access.room = result.room->settings.name;
}

template <typename Stream> void VisitorConnection<Stream>::finish_record() {
    if (!m_access.active) return;
    m_access.active = false;
    // Once the server has stopped, frames that end with it write nothing more.
    if (!m_worker.logging || !m_worker.access_log.enabled()) return;
    m_worker.access_log.append(m_access, std::chrono::steady_clock::now());
}

template <typename Stream> net::Task<> VisitorConnection<Stream>::serve() {
    const EdgeOptions& options = m_shared.options;
    while (m_shared.running.load(std::memory_order_relaxed)) {
        const HeadRead read = co_await read_head();
        if (read == HeadRead::closed) co_return;
        if constexpr (k_plain)
            if (read == HeadRead::h2c_preface) co_return; // the caller goes on in HTTP/2 (edge_server.cpp)
        // One read of the clock for the request: the Gate decides at this time and the log
        // records it. A head that failed is only logged.
        const bool head_complete = read == HeadRead::complete;
        const util::TimePoint now = head_complete || m_worker.access_log.enabled() ? m_shared.clock.now() : util::TimePoint{};
        begin_record(head_complete, now);
        // Hold this snapshot for the whole request: the room and zone the Gate finds, and the
        // log's record of them, point into it. The line is written before it goes.
        const Snapshot snapshot = m_worker.current(m_shared.config);
        const RecordOnExit record_on_exit{*this}; // the line is written as this request ends, however it ends
        switch (read) {
        case HeadRead::complete: break;
        case HeadRead::closed:
        case HeadRead::h2c_preface: co_return;
        case HeadRead::timed_out:
            m_access.decision = Decision::request_timeout;
            co_await answer_error(408, "Request Timeout", "The request took too long to arrive.", false, false);
            co_return;
        case HeadRead::too_large:
            m_access.decision = Decision::headers_too_large;
            co_await answer_error(431, "Request header fields too large", "The request's headers are larger than this site accepts.",
                                  false, false);
            co_return;
        case HeadRead::invalid:
            m_access.decision = Decision::bad_request;
            co_await answer_error(400, "Bad Request", "The request is not valid HTTP/1.1.", false, false);
            co_return;
        case HeadRead::unsupported_version:
            m_access.decision = Decision::version_not_supported;
            co_await answer_error(505, "HTTP Version Not Supported", "This site speaks HTTP/1.0 and HTTP/1.1.", false, false);
            co_return;
        case HeadRead::over_share:
            // Its head is not read: the answer goes as the connection closes, without lingering.
            m_refused = true;
            m_watch.expire_in(std::chrono::seconds{1});
            co_await answer_error(429, "Too many requests", "Too many unfinished requests from your address. Please try again.",
                                  false, false);
            co_return;
        }

        const util::ScopedCount in_flight(m_shared.in_flight); // a drain waits for it
        m_shared.analytics.edge().http1_requests.fetch_add(1, std::memory_order_relaxed);
        const net::MessageHead& request = m_request.head();
        // While draining, every answer closes its connection.
        bool keep_alive = request.keep_alive && !m_shared.draining.load(std::memory_order_acquire);
        const bool head_method = request.method == "HEAD";
        const bool body_pending = request.framing != net::BodyFraming::none;
        IncomingRequest incoming = describe_request(request, m_cookies, m_peer, m_https, m_shared.trusted_proxies);
        incoming.request_id = m_access.request_id.view();
        record_request(incoming);
        if (request.method == "CONNECT") {
            m_access.decision = Decision::method_not_allowed;
            co_await answer_error(405, "Method Not Allowed", "This site is not a forward proxy.", false, false);
            co_return;
        }
        // A body announced larger than the limit is refused before anything else reads it.
        if (request.framing == net::BodyFraming::length && options.max_request_body > 0 && request.content_length > options.max_request_body) {
            m_access.decision = Decision::body_too_large;
            co_await answer_error(413, "Request too large", "The request is larger than this site accepts.", false, head_method);
            co_return;
        }

        GateResult& result = m_result;
        try {
            const auto decision_start = std::chrono::steady_clock::now();
            m_worker.gate.handle(snapshot, incoming, now, result);
            m_shared.analytics.decision_time().observe(std::chrono::steady_clock::now() - decision_start);
            if (result.action == GateResult::Action::verify_turnstile) {
                // The only decision that waits for the network; other requests on this thread go on meanwhile.
                const TokenInTarget token = std::move(*result.turnstile);
                const bool passed = co_await m_worker.turnstile.verify(token.token, address_text(incoming.client), m_watch);
                result = m_worker.gate.answer_turnstile(snapshot, incoming, token, passed, m_shared.clock.now());
            }
        } catch (const std::exception& error) {
            // The data plane does not throw by design; if something does, fail closed for this
            // request and keep serving.
            util::log_error("edge", std::string("deciding a request failed: ") + error.what());
            result.reset();
            result.status = 500;
            result.decision = Decision::internal_error;
            result.body = own_page(error_page(500, "Something went wrong", "Please try again in a moment.", m_access.request_id.view()));
        }
        record_decision(result);

        if (result.action == GateResult::Action::proxy) {
            if (!co_await proxy(result, now, keep_alive)) co_return;
            continue;
        }
        // wr's own answer: the queue, reject, 429, 303 or error page. A body on its way is not
        // read: the connection closes after the answer.
        if (body_pending) keep_alive = false;
        const size_t head_size = request.size;
        if (!co_await answer(result.status, page_text(result.body), keep_alive, head_method, &result)) co_return;
        m_in.consume(head_size);
    }
}

template class VisitorConnection<net::Socket>;
template class VisitorConnection<net::TlsSocket>;

} // namespace wr::edge
