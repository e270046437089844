#pragma once
// Parses and type-checks a bypass-rule expression. Pure.
#include <optional>
#include <string>
#include <string_view>

#include "expr/ast.h"

namespace wr::expr {

inline constexpr size_t k_max_expression_length = 4096;
inline constexpr int k_max_nesting_depth = 64;

struct ParseError {
    size_t column = 0; // 1-based
    std::string message;

    // "unknown field 'foo' at column 1"
    std::string text() const { return message + " at column " + std::to_string(column); }
};

struct ParseResult {
    NodePtr root;                   // set when the expression is valid
    std::optional<ParseError> error; // set otherwise
};

ParseResult parse(std::string_view expression);

// Parses "10.0.0.0/8", "192.0.2.1", "2001:db8::/32"; nullopt when malformed.
std::optional<IpNetwork> parse_ip_network(std::string_view text);

} // namespace wr::expr
