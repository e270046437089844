// base64url encoding and decoding.
#include "util/base64.h"

#include <array>

namespace wr::util {
namespace {

constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::array<int8_t, 256> decoding_table() {
    std::array<int8_t, 256> table{};
    for (auto& entry : table) entry = -1;
    for (int i = 0; i < 64; ++i) table[static_cast<uint8_t>(k_alphabet[i])] = static_cast<int8_t>(i);
    return table;
}

constexpr std::array<int8_t, 256> k_decoding = decoding_table();

} // namespace

void base64url_append(const uint8_t* data, size_t size, std::string& out) {
    const size_t start = out.size();
    out.resize(start + (size * 4 + 2) / 3);
    char* at = out.data() + start;
    size_t i = 0;
    for (; i + 3 <= size; i += 3) {
        const uint32_t n = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8) | data[i + 2];
        *at++ = k_alphabet[(n >> 18) & 63];
        *at++ = k_alphabet[(n >> 12) & 63];
        *at++ = k_alphabet[(n >> 6) & 63];
        *at++ = k_alphabet[n & 63];
    }
    if (size - i == 1) {
        const uint32_t n = uint32_t{data[i]} << 16;
        *at++ = k_alphabet[(n >> 18) & 63];
        *at++ = k_alphabet[(n >> 12) & 63];
    } else if (size - i == 2) {
        const uint32_t n = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8);
        *at++ = k_alphabet[(n >> 18) & 63];
        *at++ = k_alphabet[(n >> 12) & 63];
        *at++ = k_alphabet[(n >> 6) & 63];
    }
}

std::string base64url_encode(const uint8_t* data, size_t size) {
    std::string out;
    base64url_append(data, size, out);
    return out;
}

std::optional<size_t> base64url_decode(std::string_view text, uint8_t* out, size_t capacity) {
    if (text.size() % 4 == 1 || text.size() / 4 * 3 + (text.size() % 4 ? text.size() % 4 - 1 : 0) > capacity) return std::nullopt;
    uint32_t buffer = 0;
    int bits = 0;
    size_t size = 0;
    for (const char c : text) {
        const int8_t value = k_decoding[static_cast<uint8_t>(c)];
        if (value < 0) return std::nullopt;
        buffer = (buffer << 6) | static_cast<uint32_t>(value);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[size++] = static_cast<uint8_t>((buffer >> bits) & 0xff);
        }
    }
    if ((buffer & ((1u << bits) - 1)) != 0) return std::nullopt;
    return size;
}

bool base64url_decode(std::string_view text, std::string& out) {
    if (text.size() % 4 == 1) return false;
    uint32_t buffer = 0;
    int bits = 0;
    for (const char c : text) {
        const int8_t value = k_decoding[static_cast<uint8_t>(c)];
        if (value < 0) return false;
        buffer = (buffer << 6) | static_cast<uint32_t>(value);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((buffer >> bits) & 0xff);
        }
    }
    // Leftover bits must be zero, so that each byte string has exactly one encoding.
    return (buffer & ((1u << bits) - 1)) == 0;
}

} // namespace wr::util
