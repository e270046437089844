#pragma once
// Request ids: each request gets one, sent to the origin as X-Request-Id, written to the access
// log and shown on wr's own error pages, so that a visitor's screenshot leads to the log line.
// A proxy the operator trusts (--trusted-proxy) may have given one already; any other visitor's
// X-Request-Id is ignored. Generated ids are 32 hex characters from a per-thread generator: no
// allocation, no lock, no system call. Pure.
#include <cstdint>
#include <string_view>

namespace wr::edge {

inline constexpr size_t k_max_request_id = 64;

struct RequestId {
    char text[k_max_request_id];
    uint8_t size = 0;
    std::string_view view() const { return {text, size}; }
};

// Whether a proxy's X-Request-Id may be used as it is: 1 to 64 letters, digits, '-', '_', '.', ':'.
bool acceptable_request_id(std::string_view value);

class RequestIdSource {
public:
    explicit RequestIdSource(uint64_t seed) : m_state(seed) {}
    // A fresh id into `out`.
    void next(RequestId& out);
    // `forwarded` when acceptable, else a fresh id.
    void take_or_make(std::string_view forwarded, RequestId& out);

private:
    uint64_t m_state;
};

} // namespace wr::edge
