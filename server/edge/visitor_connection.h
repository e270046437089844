#pragma once
// One visitor's connection, from its first byte to its close: read a request head (within
// --header-timeout of its first byte, at most 16 KiB, else 408 or 431), ask the Gate, then answer
// with wr's own page or forward the request (edge/proxy_exchange.cpp) — streaming bodies both
// ways, or becoming a tunnel after a 101 (edge/tunnel.cpp) — and go round again while the
// connection is kept alive. Written once for plain TCP and TLS streams. On the plain edge with
// --edge-h2c, a connection that opens with HTTP/2's preface is handed back to be served as HTTP/2.
#include <string>
#include <type_traits>
#include <vector>

#include "net/asio.h"
#include "net/connection_watch.h"
#include "net/http_parser.h"
#include "net/read_buffer.h"
#include "net/tls_socket.h"
#include "edge/access_log.h"
#include "edge/worker.h"
#include "origin/response_reader.h"

namespace wr::edge {

template <typename Stream> class VisitorConnection {
public:
    VisitorConnection(Worker& worker, const EdgeShared& shared, Stream& stream, queue::ClientAddress peer, bool https);
    ~VisitorConnection();
    VisitorConnection(const VisitorConnection&) = delete;
    VisitorConnection& operator=(const VisitorConnection&) = delete;

    // Serves requests until the connection ends; the caller then closes the stream.
    net::Task<> serve();
    net::ConnectionWatch& watch() { return m_watch; }
    // Refused because its address had its share of heads being read: close without lingering.
    bool refused() const { return m_refused; }
    // --edge-h2c: the connection opened with HTTP/2's preface and serve() returned without
    // answering; what it read (the preface and whatever came with it) is the HTTP/2 connection's.
    bool h2c_preface() const { return m_h2c_preface; }
    net::ReadBuffer take_input() { return std::exchange(m_in, net::ReadBuffer{}); }

private:
    static constexpr bool k_plain = std::is_same_v<Stream, net::Socket>;
    enum class HeadRead { complete, closed, h2c_preface, timed_out, too_large, invalid, unsupported_version, over_share };
    net::Task<HeadRead> read_head();
    // --edge-h2c, on a plain connection's first bytes: whether they are HTTP/2's preface, may
    // still become it (more must be read), or are not (HTTP/1).
    enum class Preface { not_it, partial, whole };
    Preface sniff_preface();
    // wr's own answer (queue page, error page…); false when the connection must close after it.
    net::Task<bool> answer(int status, std::string_view body, bool keep_alive, bool head_request, const GateResult* result = nullptr);
    net::Task<bool> answer_error(int status, std::string_view title, std::string_view text, bool keep_alive, bool head_request);
    // The access log's record of the request being answered: begun when its head has been read
    // (or has failed to be), written out by its thread's buffer when the answer is done.
    void begin_record(bool head_complete, util::TimePoint now);
    void record_request(const IncomingRequest& incoming);
    void record_decision(const GateResult& result);
    void finish_record();
    struct RecordOnExit {
        VisitorConnection& connection;
        ~RecordOnExit() { connection.finish_record(); }
    };

    // edge/proxy_exchange.cpp: forwards the request the Gate admitted; false when the connection
    // must close afterwards (and after a tunnel, which always ends it).
    net::Task<bool> proxy(GateResult& result, util::TimePoint now, bool keep_alive);
    enum class ResponseHeadRead { complete, nothing, failed, invalid };
    net::Task<ResponseHeadRead> read_response_head(origin::OriginConnection& origin, bool head_request);
    net::Task<> upload_body(origin::OriginConnection& origin, net::BodyFraming framing, const origin::ConnectionCap* cap);
    void start_upload(origin::OriginConnection& origin, net::BodyFraming framing, const origin::ConnectionCap* cap);
    // Ends an upload that is still running (the origin answered without reading it all), then waits.
    net::Task<> stop_upload(origin::OriginConnection& origin);
    net::Task<> wait_for_upload();
    // The origin gave no answer (counted with record_origin_error): answered with wr's page,
    // which carries the visitor's cookie (and Retry-After when > 0).
    net::Task<bool> answer_origin_failure(const GateResult& result, int status, std::string_view title, std::string_view text,
                                          bool keep_alive, bool head_request, int retry_after_seconds = 0);
    // edge/tunnel.cpp: bytes both ways until either side closes or the tunnel idles too long.
    net::Task<> tunnel(origin::OriginConnection& origin);
    net::Task<> pump_to_visitor(origin::OriginConnection& origin);

    Worker& m_worker;
    const EdgeShared& m_shared;
    Stream& m_stream;
    queue::ClientAddress m_peer;
    std::string m_peer_text;
    bool m_https;
    bool m_trusted_proxy;         // the peer is a --trusted-proxy: its heads take no address's share
    bool m_refused = false;
    bool m_preface_possible = false; // plain, --edge-h2c, and nothing seen yet that is not the preface
    bool m_h2c_preface = false;
    int m_version_minor = 1;      // the request being answered: HTTP/1.0 or 1.1
    net::ConnectionWatch m_watch;
    net::SteadyTime m_head_started{}; // the first byte of the head being read (or answered)
    net::ReadBuffer m_in;
    net::HttpParser m_request{net::HttpParser::Kind::request};
    origin::ResponseReader m_reader; // the origin's answer to the request being forwarded
    std::string m_out;            // heads and wr's own pages; its capacity stays for the next request
    std::string m_cookies;        // the Cookie headers joined, when a request has several
    GateResult m_result;          // the Gate's decision, filled afresh for each request
    AccessRecord m_access;        // the request being answered, for the access log (and its id, always)
    std::vector<std::string_view> m_pieces;     // response body pieces of one read
    std::vector<asio::const_buffer> m_gather;   // what one write sends
    char m_chunk_head[20];        // "<hex size>\r\n" of the chunk being written to the visitor

    // The request body's way to the origin, when it streams beside the answer.
    struct Upload {
        bool running = false;
        bool finished = false;
        bool waiting_for_visitor = false;
        bool stopping = false;
        enum class End { complete, visitor_closed, visitor_too_slow, invalid, too_large, origin_failed, stopped } end = End::complete;
        uint64_t bytes = 0;
        // While others wait under the zone's cap, the body must bring k_stream_buffer bytes
        // within each k_stall_while_others_wait: counted from when the last such share began.
        net::SteadyTime share_began{};
        uint64_t share_bytes = 0;
        std::vector<std::string_view> pieces;
        std::vector<asio::const_buffer> gather;
        char chunk_head[20];
    } m_upload;
    net::Timer m_signal; // wakes the answer's side when the upload ends
};

// Formats "<hex size>\r\n" into `out` (at least 20 bytes); returns its length.
size_t format_chunk_head(char* out, uint64_t size);

// wr's own error page; it names the request's id when it has one.
std::string error_page(int status, std::string_view title, std::string_view text, std::string_view request_id = {});

} // namespace wr::edge
