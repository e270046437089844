#pragma once
// base64url without padding (RFC 4648 §5), as cookies carry it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wr::util {

std::string base64url_encode(const uint8_t* data, size_t size);
// Appends the encoding to `out` (no allocation when `out` has room: the edge's cookies).
void base64url_append(const uint8_t* data, size_t size, std::string& out);
// Appends the decoded bytes to `out`; false when the text is not base64url.
bool base64url_decode(std::string_view text, std::string& out);
// Decodes into a caller's buffer; the decoded size, or nullopt when the text is not base64url or
// does not fit.
std::optional<size_t> base64url_decode(std::string_view text, uint8_t* out, size_t capacity);

} // namespace wr::util
