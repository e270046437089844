// Makes and checks request ids.
#include "edge/request_id.h"

#include <cstring>

namespace wr::edge {
namespace {

// SplitMix64: each call a well-mixed 64-bit value; unique over 2^64 calls per seed.
uint64_t split_mix(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void hex16(uint64_t value, char* out) {
    static constexpr char k_digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; --i) {
        out[i] = k_digits[value & 15];
        value >>= 4;
    }
}

} // namespace

bool acceptable_request_id(std::string_view value) {
    if (value.empty() || value.size() > k_max_request_id) return false;
    for (const char c : value)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == ':'))
            return false;
    return true;
}

void RequestIdSource::next(RequestId& out) {
    hex16(split_mix(m_state), out.text);
    hex16(split_mix(m_state), out.text + 16);
    out.size = 32;
}

void RequestIdSource::take_or_make(std::string_view forwarded, RequestId& out) {
    if (!acceptable_request_id(forwarded)) return next(out);
    std::memcpy(out.text, forwarded.data(), forwarded.size());
    out.size = static_cast<uint8_t>(forwarded.size());
}

} // namespace wr::edge
