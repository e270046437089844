#pragma once
// Reads HTTP/1.x messages with llhttp (Node.js's parser, from Debian's node-llhttp, compiled in
// strict mode): the head into a MessageHead of views into the caller's buffer, then the body as
// decoded pieces (chunked framing removed), so that wr forwards bodies with framing it produces
// itself and never bytes whose framing it did not check. Requests that a strict proxy refuses are
// refused: Content-Length together with Transfer-Encoding, duplicate or malformed
// Content-Length, a Transfer-Encoding that does not end in chunked, obs-fold, bare LF or CR,
// whitespace before a colon, versions other than 1.0 and 1.1. No I/O; the caller reads.
#include <memory>
#include <string_view>
#include <vector>

#include "net/http_message.h"

namespace wr::net {

// The largest request head the edge reads; a larger one gets 431.
inline constexpr size_t k_max_request_head = 16 * 1024;
// The largest response head an origin may send.
inline constexpr size_t k_max_response_head = 64 * 1024;

enum class HeadStatus { incomplete, complete, invalid, too_many_headers, unsupported_version };
enum class BodyStatus { more, complete, invalid };

class HttpParser {
public:
    enum class Kind { request, response };
    static constexpr size_t k_max_header_fields = 256;

    explicit HttpParser(Kind kind);
    ~HttpParser();
    HttpParser(const HttpParser&) = delete;
    HttpParser& operator=(const HttpParser&) = delete;

    // Starts a new message. For a response, `to_head_request` says the request was HEAD, so the
    // answer has no body whatever its Content-Length says.
    void begin(bool to_head_request = false);

    // Parses more of the head: `message` is the message's first byte and `available` the bytes of
    // it buffered so far (the buffer may have moved since the last call; bytes seen already are
    // not parsed again). On `complete`, head() describes it, with views into `message`.
    HeadStatus parse_head(const char* message, size_t available);
    const MessageHead& head() const { return m_head; }

    // Parses body bytes that follow the head; the body's content (without chunk framing, trailers
    // dropped) is appended to `pieces` as views into `data`. `consumed` says how much of `data` was
    // this message's: bytes after a complete body belong to the next message.
    BodyStatus parse_body(const char* data, size_t size, size_t& consumed, std::vector<std::string_view>& pieces);
    // The sender closed the connection: completes an until_close body, or says the body was cut short.
    BodyStatus finish_body();

private:
    struct State;
    std::unique_ptr<State> m_state;
    MessageHead m_head;
};

} // namespace wr::net
