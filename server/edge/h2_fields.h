#pragma once
// The header blocks of HTTP/2 streams, translated to and from wr's HTTP/1.1 world. Pure.
//
// In: a stream's header fields (already checked by nghttp2 against RFC 9113: lowercase names,
// no connection-specific fields, pseudo-headers first) are kept in one buffer, bounded like an
// HTTP/1 head (a block over the limit is answered 431), and read as the HTTP/1.1 request head the
// rest of the edge knows: :method and :path as the request line, :authority as Host.
// Out: wr's own pages and the origin's answers as HTTP/2 fields — the same headers an HTTP/1.1
// visitor gets, minus the connection-specific ones (Connection, Keep-Alive, Transfer-Encoding,
// Upgrade, Proxy-Connection, TE and those a Connection header names), names in lowercase.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nghttp2/nghttp2.h>

#include "edge/page_response.h"
#include "net/http_message.h"

namespace wr::edge {

class RequestFields {
public:
    // The most a block may hold, counted as SETTINGS_MAX_HEADER_LIST_SIZE counts (name + value +
    // 32 per field), and the most fields: past either the request is answered 431. Browsers send
    // each cookie as a field of its own (RFC 9113 §8.2.3), so cookie crumbs count as one field
    // together, as HTTP/1.1's one Cookie line does.
    static constexpr size_t k_max_list_size = 16 * 1024;
    static constexpr size_t k_max_fields = 100;

    void clear();
    // Keeps a field; false once the block is over a limit (the rest is dropped, not stored).
    bool add(std::string_view name, std::string_view value);
    bool too_large() const { return m_too_large; }
    // Four times over a limit: no honest client's block, and one that references a long value in
    // the HPACK table over and over could make the decoder check hundreds of MiB for a 16 KiB
    // frame. Such a stream is reset instead of being decoded to its end and answered 431.
    bool far_too_large() const { return m_list_size > 4 * k_max_list_size || m_counted_fields > 4 * k_max_fields; }

    // The request as an HTTP/1.1 head whose views point into this block (valid until clear()).
    // The body is framed by its content-length when it has one, else none when the HEADERS
    // frame ended the stream, else chunked (the origin gets it as it arrives).
    void build(net::MessageHead& head, bool end_stream) const;

private:
    struct Span {
        uint32_t name_at, name_size, value_at, value_size;
    };
    std::string_view text(uint32_t at, uint32_t size) const { return std::string_view(m_storage).substr(at, size); }
    std::string m_storage;
    std::vector<Span> m_fields;
    size_t m_list_size = 0;
    size_t m_counted_fields = 0; // cookie crumbs as one
    bool m_cookie_counted = false;
    bool m_too_large = false;
};

// Whether a request's :path (the head's target, once built) is a path ("/…"), or "*" for
// OPTIONS (RFC 9113 §8.3.1). nghttp2 checks that only for the schemes http and https, and a path
// without its slash would reach the origin glued to the zone's path prefix ("/base" +
// "x/../admin"): such a request is answered 400.
bool usable_path(std::string_view method, std::string_view target);

// HTTP/2 fields to send: names and values copied into one buffer, the nghttp2_nv array made
// once they are all in (the buffer may move while it grows).
class ResponseFields {
public:
    void clear();
    void add(std::string_view name, std::string_view value);
    void add(std::string_view name, int64_t value);
    // A field whose value is new in every answer (a request id, a cookie): sent without entering
    // HPACK's dynamic table. Indexed, each would push out the fields that do repeat, and nghttp2
    // keeps the entries of one name on one hash chain, which it walks for every field of that name.
    void add_unique(std::string_view name, std::string_view value);
    // The array for nghttp2_submit_response / nghttp2_submit_headers; valid until the next add or
    // clear. Without `copy` nghttp2 reads the names and values from here when it sends the
    // frame, so the fields must stay untouched until then.
    const nghttp2_nv* finish(bool copy = false);
    size_t size() const { return m_spans.size(); }
    // For tests: the value of the first field named `name`, "" when absent.
    std::string_view find(std::string_view name) const;

private:
    struct Span {
        size_t name_at, name_size, value_at, value_size;
        bool unique;
    };
    std::string m_storage;
    std::vector<Span> m_spans;
    std::vector<nghttp2_nv> m_nv;
};

// wr's own answer: the headers write_page_head writes for HTTP/1.1, without Connection.
void page_fields(ResponseFields& out, const PageHead& head, size_t body_size);

// The origin's answer (final or 1xx) for an HTTP/2 visitor: connection-specific headers and
// Cf-Waiting-Room-Command out, `set_cookie` added when not empty, Content-Length kept only when
// `keep_length` (the body is passed on as the origin framed it by length, or is absent).
void origin_fields(ResponseFields& out, const net::MessageHead& response, std::string_view set_cookie, bool keep_length);

} // namespace wr::edge
