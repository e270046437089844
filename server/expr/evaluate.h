#pragma once
// Evaluates a parsed bypass-rule expression against one request. Reads only views into the
// request; allocates nothing (lower() of a value too long for the thread's scratch buffer is
// compared case-insensitively instead of copied).
#include <array>
#include <cstdint>
#include <string_view>

#include "expr/ast.h"

namespace wr::expr {

// What a rule can look at, as views into the request being decided.
struct RequestFields {
    std::array<uint8_t, 16> ip{};  // the client address, IPv4 mapped into IPv6
    bool has_ip = false;
    std::string_view host;         // normalised: lowercase, no port
    std::string_view uri;          // the request target as sent
    std::string_view path;         // the normalised path used for routing
    std::string_view query;        // the raw query, without '?'
    std::string_view method;
    std::string_view user_agent;
    std::string_view cookie;
    std::string_view referer;
    // Finds a request header by lowercase name ("" when absent); a plain function and its context
    // so that building the fields for a request never allocates.
    std::string_view (*header)(const void* context, std::string_view lowercase_name) = nullptr;
    const void* header_context = nullptr;
};

bool evaluate(const Node& expression, const RequestFields& request);

// "192.0.2.1" or "2001:db8::1" into the 16-byte form the evaluator compares; false when malformed.
bool parse_ip_address(std::string_view text, std::array<uint8_t, 16>& address);

} // namespace wr::expr
