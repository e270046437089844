#pragma once
// Spaces and tabs off both ends of a piece of text: HTTP's optional whitespace around field values
// and list items, and the blanks around names in the edge's other small grammars. Pure.
#include <string_view>

namespace wr::util {

inline std::string_view trim_blanks(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

} // namespace wr::util
