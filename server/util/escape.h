#pragma once
// Escaping shared by pages, charts, the edge and the CLI. Pure.
#include <string>
#include <string_view>

namespace wr::util {

// Text safe inside HTML or SVG content and double-quoted attributes: & < > " escaped.
std::string escape_html(std::string_view text);

// RFC 3986 percent-encoding of everything but the unreserved characters (A-Z a-z 0-9 - . _ ~):
// safe as a URL path segment and as an application/x-www-form-urlencoded value.
std::string percent_encode(std::string_view text);

// The value of one hexadecimal digit, or -1.
int hex_digit_value(char c);

} // namespace wr::util
