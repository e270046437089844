#include "util/escape.h"

#include "util/utf8.h"

namespace wr::util {

std::string escape_html(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string percent_encode(std::string_view text) {
    static constexpr char k_hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') ||
                                c == '-' || c == '.' || c == '_' || c == '~';
        if (unreserved) {
            out += c;
        } else {
            out += '%';
            out += k_hex[byte >> 4];
            out += k_hex[byte & 15];
        }
    }
    return out;
}

std::string printable_text(std::string_view text) {
    static constexpr char k_hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    const auto escape = [&](std::string_view bytes) {
        for (const char c : bytes) {
            out += "\\x";
            out += k_hex[static_cast<unsigned char>(c) >> 4];
            out += k_hex[static_cast<unsigned char>(c) & 15];
        }
    };
    for (size_t at = 0; at < text.size();) {
        const auto byte = static_cast<unsigned char>(text[at]);
        const size_t length = utf8_sequence_length(text.substr(at));
        const std::string_view sequence = text.substr(at, length == 0 ? 1 : length);
        // C1 controls are U+0080..U+009F: C2 80..C2 9F.
        const bool control = byte < 0x20 || byte == 0x7f || byte == '\\' ||
                             (byte == 0xc2 && length == 2 && static_cast<unsigned char>(text[at + 1]) < 0xa0);
        if (length == 0 || control)
            escape(sequence);
        else
            out += sequence;
        at += sequence.size();
    }
    return out;
}

int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace wr::util
