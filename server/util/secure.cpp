// Random ids and tokens, SHA-256 and constant-time comparison, all through OpenSSL.
#include "util/secure.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stdexcept>

namespace wr::util {

std::vector<uint8_t> random_bytes(size_t count) {
    std::vector<uint8_t> bytes(count);
    if (RAND_bytes(bytes.data(), static_cast<int>(count)) != 1) throw std::runtime_error("the system random source failed");
    return bytes;
}

std::string hex_encode(const uint8_t* data, size_t size) {
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string text(size * 2, '0');
    for (size_t i = 0; i < size; ++i) {
        text[2 * i] = k_digits[data[i] >> 4];
        text[2 * i + 1] = k_digits[data[i] & 0xf];
    }
    return text;
}

std::string new_id() { return hex_encode(random_bytes(16)); }

bool is_id(std::string_view text) {
    if (text.size() != 32) return false;
    for (const char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string sha256_hex(std::string_view text) {
    uint8_t digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 failed");
    return hex_encode(digest, length);
}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
    uint8_t digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
              message.size(), digest, &length))
        throw std::runtime_error("HMAC-SHA256 failed");
    return hex_encode(digest, length);
}

bool constant_time_equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace wr::util
