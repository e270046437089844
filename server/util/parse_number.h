#pragma once
// A whole number written as the whole of a text ("42", "-7"), or nothing: no sign of "+", no
// spaces, no trailing characters, nothing out of T's range.
#include <charconv>
#include <optional>
#include <string_view>

namespace wr::util {

template <typename T> std::optional<T> parse_number(std::string_view text) {
    T value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

} // namespace wr::util
