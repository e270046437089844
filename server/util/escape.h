#pragma once
// Escaping shared by pages, charts, logs, the admin API, the edge and the CLI. Pure.
#include <string>
#include <string_view>

namespace wr::util {

// Text safe inside HTML or SVG content and double-quoted attributes: & < > " escaped.
std::string escape_html(std::string_view text);

// RFC 3986 percent-encoding of everything but the unreserved characters (A-Z a-z 0-9 - . _ ~):
// safe as a URL path segment and as an application/x-www-form-urlencoded value.
std::string percent_encode(std::string_view text);

// Text a client sent, safe in a log line and in a JSON error message: well-formed UTF-8 is kept;
// control characters (C0, DEL, C1: a newline would forge a log line, an ESC drive a terminal),
// the backslash (so that an escape in the output was always made here) and every byte that is
// not part of well-formed UTF-8 (which JSON cannot carry) become \xHH, as in the edge's access log.
std::string printable_text(std::string_view text);

// The value of one hexadecimal digit, or -1.
int hex_digit_value(char c);

} // namespace wr::util
