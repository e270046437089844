#pragma once
// What the operator sets for the edge (`wr serve` flags, through AppOptions).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "edge/access_log.h"
#include "edge/crawler.h"
#include "origin/origin_pool.h"
#include "edge/turnstile.h"

namespace wr::edge {

struct EdgeOptions {
    std::string host = "0.0.0.0";
    int port = 8080;          // 0: any free port
    int threads = 0;          // 0: one per core
    std::string tls_certificate; // PEM files; both empty for plain HTTP
    std::string tls_private_key;
    std::string tls_ocsp; // a DER OCSP response to staple; empty: none
    bool h2c = false;     // plain edge: a connection that opens with HTTP/2's preface speaks HTTP/2 (prior knowledge)
    std::chrono::seconds idle_timeout{60};      // an idle keep-alive connection closes after this
    std::chrono::seconds header_timeout{10};    // a request head must arrive within this of its first byte
    std::chrono::seconds tunnel_idle_timeout{3600}; // an upgraded connection (WebSocket) silent this long closes
    int max_connections = 0;  // visitor connections at once; 0: derived from RLIMIT_NOFILE
    uint64_t max_request_body = 100 * 1024 * 1024; // larger request bodies get 413; 0: no limit
    origin::OriginOptions origin;
    TurnstileOptions turnstile;
    std::vector<std::string> trusted_proxies; // CIDRs whose X-Forwarded-For is believed
    std::shared_ptr<Resolver> crawler_resolver; // DNS for crawler checks; nullptr: the system's
    // The access log: a path, "-" for stdout, or "" for none.
    std::string access_log;
    AccessLogFormat access_log_format = AccessLogFormat::combined;
    size_t access_log_max_pending = 8 * 1024 * 1024; // lines waiting for the disk beyond this are dropped
    std::string node_name = "wr";                    // in every JSON line
};

// What one read takes in while a body streams through: the memory a connection holds per direction.
inline constexpr size_t k_stream_buffer = 16 * 1024;

} // namespace wr::edge
