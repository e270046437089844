// Request targets in, answer heads out, for the admin listener.
#include "api/admin_http.h"

namespace wr::api {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// "a=1&b=two%20words&flag": each pair once, as cpp-httplib read them (a name without '=' has an
// empty value; empty names are skipped).
void read_query(std::string_view text, Request& request) {
    while (!text.empty()) {
        const size_t amp = text.find('&');
        const std::string_view pair = text.substr(0, amp);
        text = amp == std::string_view::npos ? std::string_view() : text.substr(amp + 1);
        const size_t equals = pair.find('=');
        std::string name = decode_url(pair.substr(0, equals), true);
        if (name.empty()) continue;
        std::string value = equals == std::string_view::npos ? std::string() : decode_url(pair.substr(equals + 1), true);
        request.query.emplace(std::move(name), std::move(value));
    }
}

} // namespace

std::string decode_url(std::string_view text, bool plus_is_space) {
    std::string decoded;
    decoded.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%' && i + 2 < text.size()) {
            const int high = hex_value(text[i + 1]);
            const int low = hex_value(text[i + 2]);
            if (high >= 0 && low >= 0) {
                decoded.push_back(static_cast<char>(high * 16 + low));
                i += 2;
                continue;
            }
        }
        decoded.push_back(plus_is_space && c == '+' ? ' ' : c);
    }
    return decoded;
}

bool read_target(std::string_view target, Request& request) {
    if (!target.starts_with('/')) return false;
    const size_t question = target.find('?');
    request.path = decode_url(target.substr(0, question), false);
    if (question != std::string_view::npos) read_query(target.substr(question + 1), request);
    return true;
}

std::string address_text(const boost::asio::ip::address& address) {
    if (address.is_v6() && address.to_v6().is_v4_mapped())
        return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6()).to_string();
    return address.to_string();
}

std::string reply_head(const Reply& reply, size_t body_size, bool keep_alive) {
    std::string head;
    head.reserve(256);
    head += "HTTP/1.1 ";
    head += std::to_string(reply.status);
    head += ' ';
    head += reason_phrase(reply.status);
    head += "\r\nContent-Type: ";
    head += reply.content_type;
    head += "\r\nContent-Length: ";
    head += std::to_string(body_size);
    head += "\r\nCache-Control: no-store\r\n";
    for (const auto& [name, value] : reply.headers) {
        head += name;
        head += ": ";
        head += value;
        head += "\r\n";
    }
    if (!keep_alive) head += "Connection: close\r\n";
    head += "\r\n";
    return head;
}

const char* reason_phrase(int status) {
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
    }
}

} // namespace wr::api
