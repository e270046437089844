#pragma once
// ASCII case for names that compare case-insensitively (hosts, media types, command names):
// letters beyond ASCII are left as they are. Pure.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace wr::util {

inline std::string lowercase(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return result;
}

} // namespace wr::util
