#pragma once
// Cryptographic primitives the control plane needs: unpredictable ids and tokens, hashes,
// and comparisons that take the same time whatever the input.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wr::util {

// Bytes from OpenSSL's CSPRNG; throws if it cannot deliver.
std::vector<uint8_t> random_bytes(size_t count);

std::string hex_encode(const uint8_t* data, size_t size);
inline std::string hex_encode(const std::vector<uint8_t>& bytes) { return hex_encode(bytes.data(), bytes.size()); }

// A resource id as the API uses them: 32 lowercase hex characters (128 random bits).
std::string new_id();
bool is_id(std::string_view text);

// SHA-256 of the text as 64 lowercase hex characters.
std::string sha256_hex(std::string_view text);

// HMAC-SHA256 of the message under the key, as 64 lowercase hex characters.
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

bool constant_time_equal(std::string_view a, std::string_view b);

} // namespace wr::util
