// Writes wr's own answers as bytes.
#include "edge/page_response.h"

#include <charconv>

#include <boost/beast/http/status.hpp>

namespace wr::edge {
namespace {

void header(std::string& out, std::string_view name, std::string_view value) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
}

void header(std::string& out, std::string_view name, int64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    header(out, name, std::string_view(digits, static_cast<size_t>(end - digits)));
}

} // namespace

void write_page_response(std::string& out, unsigned version, const PageHead& head, std::string_view body, bool keep_alive,
                         bool head_request) {
    write_page_head(out, version, head, body.size(), keep_alive);
    if (!head_request) out += body;
}

void write_page_head(std::string& out, unsigned version, const PageHead& head, size_t body_size, bool keep_alive) {
    out.clear();
    out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
    char status[4] = {static_cast<char>('0' + head.status / 100 % 10), static_cast<char>('0' + head.status / 10 % 10),
                      static_cast<char>('0' + head.status % 10), ' '};
    out.append(status, sizeof status);
    const auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(head.status));
    out.append(reason.data(), reason.size());
    out += "\r\n";
    header(out, "Content-Type", head.content_type);
    header(out, "Cache-Control", "no-store");
    if (head.refresh_seconds > 0) header(out, "Refresh", head.refresh_seconds);
    if (head.retry_after_seconds > 0) header(out, "Retry-After", head.retry_after_seconds);
    if (!head.location.empty()) header(out, "Location", head.location);
    if (!head.set_cookie.empty()) header(out, "Set-Cookie", head.set_cookie);
    if (!head.request_id.empty()) header(out, "X-Request-Id", head.request_id);
    header(out, "Content-Length", static_cast<int64_t>(body_size));
    // HTTP/1.1 keeps connections open unless told; HTTP/1.0 closes them unless told.
    if (version == 10 && keep_alive) header(out, "Connection", "keep-alive");
    if (version != 10 && !keep_alive) header(out, "Connection", "close");
    out += "\r\n";
}

} // namespace wr::edge
