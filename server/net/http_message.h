#pragma once
// A parsed HTTP/1.x request or response head, as views into the buffer that holds its bytes:
// reading a header allocates nothing. Valid until that buffer is consumed or grows. Pure.
#include <cstdint>
#include <string_view>
#include <vector>

namespace wr::net {

struct HeaderField {
    std::string_view name;
    std::string_view value; // without surrounding whitespace
};

// How the body of a message is delimited (RFC 9112 §6).
enum class BodyFraming {
    none,        // no body: a request without Content-Length or chunking, HEAD answers, 1xx, 204, 304
    length,      // Content-Length bytes
    chunked,     // Transfer-Encoding: chunked
    until_close, // a response that ends when the origin closes the connection
};

struct MessageHead {
    // Requests
    std::string_view method;
    std::string_view target;
    // Responses
    int status = 0;
    std::string_view reason;

    int version_minor = 1; // HTTP/1.0 or HTTP/1.1
    std::vector<HeaderField> headers; // in the order received; capacity kept from message to message
    size_t size = 0;                  // bytes of the head, blank line included
    BodyFraming framing = BodyFraming::none;
    uint64_t content_length = 0;      // with BodyFraming::length
    bool keep_alive = true;           // what the sender asked for (HTTP/1.0 needs keep-alive, 1.1 no close)
    bool upgrade = false;             // a WebSocket handshake (Upgrade: websocket, named in Connection), or a 101

    // The first value of a header (case-insensitive name), "" when absent.
    std::string_view find(std::string_view name) const;
    // How many times a header occurs.
    size_t count(std::string_view name) const;
};

// Case-insensitive ASCII comparison, as header names and tokens compare.
bool equals_ignoring_case(std::string_view a, std::string_view b);

// Whether a comma-separated header value (Connection, Expect…) lists `token`, case-insensitively.
bool has_token(std::string_view list, std::string_view token);

} // namespace wr::net
