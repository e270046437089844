#pragma once
// One visitor's HTTP/2 connection: ALPN "h2" on the TLS edge, or cleartext with prior knowledge
// ("h2c", a connection that opens with the preface) on the plain edge with --edge-h2c. nghttp2
// does the framing, HPACK, flow control and the protocol's checks; this class feeds it the bytes
// read from the stream, writes what it has to send, and serves every stream as a request like any
// other: the worker's Gate decides it, and wr answers it itself (the queue page, JSON, 303, 421, 429…) or forwards
// it to the HTTP/1.1 origin through the worker's pool, each stream on its own origin connection
// (edge/h2_exchange.cpp). Memory per connection is bounded whatever the bodies: a stream's
// request body is let in only as the origin takes it (the window is given back as the bytes go
// on), and its answer is read from the origin only as the visitor takes it.
//
// Limits (docs/http2.md): 100 concurrent streams, header blocks as large as an HTTP/1 head,
// CONTINUATION frames, outbound SETTINGS/PING acknowledgements and SETTINGS entries bounded by
// nghttp2's options; the preface and first request within --header-timeout; a connection with no
// stream open closes after --idle-timeout; streams reset by the client (the "rapid reset" attack),
// SETTINGS, PING or PRIORITY frames faster than a bound (edge/h2_flood_guard.h) end the connection
// with GOAWAY(ENHANCE_YOUR_CALM). A drain sends GOAWAY
// and lets the streams in flight finish.
//
// Everything here runs on the worker's thread: the reading loop (serve), which decides each stream
// and submits wr's own answers itself, the writing loop, and a coroutine for each stream that
// waits on something (the origin, Turnstile; two while a request body streams to the origin),
// which wake each other through timers used as signals. No locks.
//
// Only the two loops touch the stream: they are templates on its type, instantiated for the TLS
// stream and the plain socket (h2_connection.cpp), so each reads and writes its own stream
// directly; everything else, the streams' exchanges included, is written once.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nghttp2/nghttp2.h>

#include "edge/access_log.h"
#include "edge/h2_flood_guard.h"
#include "edge/h2_fields.h"
#include "edge/worker.h"
#include "net/asio.h"
#include "net/connection_watch.h"
#include "net/tls_socket.h"
#include "origin/response_reader.h"

namespace wr::edge {

struct H2Upload; // edge/h2_exchange.cpp

// One request stream.
struct H2Stream {
    explicit H2Stream(int32_t stream_id, net::Executor executor) : id(stream_id), signal(executor), upload_signal(executor) {}
    // Ready to serve another stream of the connection, keeping its buffers' room up to
    // k_spare_room each.
    void reuse(int32_t stream_id);
    static constexpr size_t k_spare_room = 16 * 1024;

    int32_t id;
    bool running = false;     // its coroutine has not ended yet
    bool closed = false;      // nghttp2 closed it (answered, reset, or the connection went)
    bool doomed = false;      // nghttp2 has a reset of it queued (a frame of the client's it refused): never started
    bool headers_complete = false;
    bool end_stream = false;  // the request body is complete
    bool started = false;     // decided (answered by wr, or its coroutine started)
    bool served = false;      // a coroutine served it, and watches its answer being taken
    bool responded = false;   // a final answer was submitted
    bool in_flight = false;   // counted in the edge's requests in flight until its line is written
    RequestFields fields;
    net::MessageHead head;    // the request as HTTP/1.1, built when its headers are complete
    std::string cookies;      // several cookie fields joined, for the Gate

    // The request body: received, not yet sent to the origin (bounded by the stream's window).
    std::string body_in;
    uint64_t body_received = 0;
    uint64_t unconsumed = 0;  // received bytes whose window is not given back yet
    uint64_t connection_credited = 0; // of those, bytes the connection's window got back already
    bool waits_for_origin = false;    // waits for an origin connection under the zone's full cap
    bool body_too_large = false;

    // The answer's body: what the visitor has not taken yet.
    PageText page;            // wr's own page, kept alive while it is sent
    std::string body_out;
    size_t out_at = 0;        // bytes of body_out (or of the page) already given to nghttp2
    std::string_view out_view; // wr's own page
    bool out_end = false;     // nothing will be added: EOF once taken
    bool deferred = false;    // nghttp2 waits for more (NGHTTP2_ERR_DEFERRED)
    // When the answer was submitted, then when the visitor last took a byte of it (flow control
    // let it out): what a visitor that stops taking its answer is timed from. Nothing else the
    // client sends (PING, SETTINGS, DATA) counts.
    std::chrono::steady_clock::time_point taken_at{};

    net::Timer signal;        // wakes the stream's coroutine
    net::Timer upload_signal; // wakes its upload
    net::ConnectionWatch watch; // deadlines of its origin connection
    AccessRecord access;
    origin::ResponseReader reader;
    ResponseFields response;
    GateResult result;        // the Gate's decision, filled afresh for each stream
    Snapshot snapshot;        // the configuration the stream is decided by, held until its line is written
    util::TimePoint decided_at{};

    size_t out_pending() const { return (page ? out_view.size() : body_out.size()) - out_at; }
};

class H2Connection {
public:
    // `socket` is the TCP socket under the stream serve() is given; `https` whether that stream is
    // TLS (the origin's X-Forwarded-Proto, the cookies' automatic Secure, the protocol counted).
    H2Connection(Worker& worker, const EdgeShared& shared, net::Socket& socket, queue::ClientAddress peer, bool https);
    ~H2Connection();
    H2Connection(const H2Connection&) = delete;
    H2Connection& operator=(const H2Connection&) = delete;

    // Serves the connection on `stream` (net::TlsSocket or net::Socket) until it ends, closing its
    // sending side itself after the GOAWAY. `already_read`: bytes read from it before it was known
    // to speak HTTP/2 (the preface on the plain edge), taken before anything more is read.
    template <typename Stream> net::Task<> serve(Stream& stream, std::string_view already_read = {});
    net::ConnectionWatch& watch() { return m_watch; }
    // A drain began: GOAWAY now (no new streams); those in flight finish.
    void go_away();

private:
    friend struct H2Callbacks;
    // busy: a stream's coroutine runs (the origin, or Turnstile, answers in its own time);
    // answering: every open stream is answered by wr and waits only for the visitor to take it.
    enum class Phase { preface, reading_headers, busy, answering, idle };

    template <typename Stream> net::Task<> write_loop(Stream& stream);
    void wake_writer();
    // Hands bytes read to nghttp2 and starts the streams they completed; false when reading must
    // stop (bytes nghttp2 refused, or a session that wants no more).
    bool receive(const char* data, size_t size);
    // After each read: the streams to start, and the connection's deadline for the phase it is in.
    void after_input();
    void update_phase();
    void set_phase(Phase phase);
    // wr's own answers (streams without a coroutine) are watched by the connection, busy or not:
    // its deadline is --origin-timeout after the visitor last took a byte of the one it has left
    // longest; none left, no deadline. Called as streams are answered, taken and closed.
    void watch_answers();
    // A stream the client opened after the GOAWAY of a drain: never decided, never sent to the
    // origin, refused (REFUSED_STREAM), so that the client may send it again elsewhere.
    void refuse(H2Stream& stream);
    // Counts a control frame from the client; past its bound, the session is terminated with
    // GOAWAY(ENHANCE_YOUR_CALM).
    void count_control(H2ControlFrame kind);
    // GOAWAY(ENHANCE_YOUR_CALM) for a client that abuses the protocol, logged (at most once a
    // second per thread) as "an HTTP/2 client at … <what>; its connection ends".
    void calm_down(const std::string& what);
    void close_stream(H2Stream& stream, uint32_t error_code);
    // A stream both closed and done with: kept for the connection's next one.
    void recycle(const std::shared_ptr<H2Stream>& stream);

    // edge/h2_exchange.cpp: one stream, from its headers to its answer's end. decide() runs on the
    // reading loop and submits wr's own answers at once (a queue page needs no coroutine); true
    // when the stream goes on in serve_stream (a Turnstile token to verify, the origin to ask).
    bool decide(H2Stream& stream);
    net::Task<> serve_stream(std::shared_ptr<H2Stream> stream);
    void note_decision(H2Stream& stream, const GateResult& result);
    void deciding_failed(H2Stream& stream, const std::exception& error);
    // The stream's line written and its count in flight released (once, whoever ends it).
    void end_request(H2Stream& stream);
    void begin_record(H2Stream& stream);
    void finish_record(H2Stream& stream);
    // Submits a final answer: `fields` (finished here), and a body when `body` (the page, or
    // streamed from body_out) — false when the stream is gone.
    bool respond(H2Stream& stream, bool body);
    void answer_page(H2Stream& stream, int status, PageText body, const GateResult* result, int retry_after_seconds = 0);
    void answer_error(H2Stream& stream, int status, std::string_view title, std::string_view text, const GateResult* result = nullptr,
                      int retry_after_seconds = 0);
    net::Task<> proxy(std::shared_ptr<H2Stream> stream, GateResult& result, util::TimePoint now);
    enum class HeadRead { complete, nothing, failed, invalid };
    net::Task<HeadRead> read_response_head(H2Stream& stream, origin::OriginConnection& origin, bool head_request);
    net::Task<> upload(std::shared_ptr<H2Stream> stream, origin::OriginConnection& origin, bool chunked, H2Upload& state);
    net::Task<> stop_upload(H2Stream& stream, origin::OriginConnection& origin, H2Upload& state);
    // Waits on `timer` until it is cancelled (a signal) or `timeout` passes; false at the timeout.
    static net::Task<bool> wait(net::Timer& timer, std::chrono::steady_clock::duration timeout);
    void resume(H2Stream& stream);
    // The stream starts (true) or stops waiting for an origin connection under the zone's cap:
    // meanwhile its body holds its own window only, none of the connection's.
    void wait_for_origin(H2Stream& stream, bool waiting);
    void give_back(H2Stream& stream, size_t bytes);

    Worker& m_worker;
    const EdgeShared& m_shared;
    net::Socket& m_socket;
    bool m_https;
    std::atomic<uint64_t>& m_requests; // wr_edge_requests_total for this connection's protocol
    // False once the connection is gone: a stream's coroutine destroyed after it (when the server
    // stops with streams open, the io_context destroys their frames in any order) leaves it be.
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);
    queue::ClientAddress m_peer;
    std::string m_peer_text;
    bool m_trusted_proxy;
    nghttp2_session* m_session = nullptr;
    net::ConnectionWatch m_watch;       // the reading side: preface, header and idle deadlines
    net::ConnectionWatch m_write_watch; // a write the visitor does not take in time
    Phase m_phase = Phase::preface;
    bool m_went_away = false;
    int32_t m_last_stream = 0;          // the last stream taken, as the GOAWAY names it
    bool m_reading = true;
    bool m_writer_done = false;
    net::Timer m_write_signal;
    net::Timer m_done_signal;           // wakes serve() while it waits for the streams to end
    int m_running_streams = 0;          // stream coroutines not yet ended
    int m_active = 0;                   // streams whose headers are complete and that are open
    int m_partial = 0;                  // streams whose headers are still arriving
    std::unordered_map<int32_t, std::shared_ptr<H2Stream>> m_streams;
    std::vector<std::shared_ptr<H2Stream>> m_ready; // headers complete during the last read
    std::vector<std::shared_ptr<H2Stream>> m_spare; // streams done with, for the next ones (bounded)
    std::string m_out;
    std::array<char, 16 * 1024> m_in;
    // The client's control frames in the current second, by kind.
    H2FloodGuard m_flood_guard;
};

} // namespace wr::edge
