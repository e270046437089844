// Reads UTF-8 sequences by RFC 3629's table of well-formed byte sequences.
#include "util/utf8.h"

namespace wr::util {
namespace {

bool in(unsigned char byte, unsigned char low, unsigned char high) { return byte >= low && byte <= high; }

} // namespace

size_t utf8_sequence_length(std::string_view text) {
    if (text.empty()) return 0;
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(0);
    if (lead < 0x80) return 1;
    size_t length = 0;
    // The second byte's range depends on the lead: it rules out overlong forms, surrogates and
    // code points past U+10FFFF.
    unsigned char low = 0x80, high = 0xbf;
    if (in(lead, 0xc2, 0xdf)) {
        length = 2;
    } else if (in(lead, 0xe0, 0xef)) {
        length = 3;
        if (lead == 0xe0) low = 0xa0;
        if (lead == 0xed) high = 0x9f;
    } else if (in(lead, 0xf0, 0xf4)) {
        length = 4;
        if (lead == 0xf0) low = 0x90;
        if (lead == 0xf4) high = 0x8f;
    } else {
        return 0;
    }
    if (text.size() < length || !in(byte(1), low, high)) return 0;
    for (size_t i = 2; i < length; ++i)
        if (!in(byte(i), 0x80, 0xbf)) return 0;
    return length;
}

size_t utf8_length(std::string_view text) {
    size_t characters = 0;
    for (size_t at = 0; at < text.size(); ++characters) {
        const size_t length = utf8_sequence_length(text.substr(at));
        at += length == 0 ? 1 : length;
    }
    return characters;
}

std::string_view utf8_prefix(std::string_view text, size_t characters) {
    size_t at = 0;
    for (; at < text.size() && characters > 0; --characters) {
        const size_t length = utf8_sequence_length(text.substr(at));
        at += length == 0 ? 1 : length;
    }
    return text.substr(0, at);
}

} // namespace wr::util
