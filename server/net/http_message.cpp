// Lookups in a parsed head.
#include "net/http_message.h"

namespace wr::net {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const unsigned char x = static_cast<unsigned char>(a[i]);
        const unsigned char y = static_cast<unsigned char>(b[i]);
        if (x == y) continue;
        if ((x | 0x20) != (y | 0x20) || (x | 0x20) < 'a' || (x | 0x20) > 'z') return false;
    }
    return true;
}

bool has_token(std::string_view list, std::string_view token) {
    size_t start = 0;
    while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string_view::npos) comma = list.size();
        std::string_view item = list.substr(start, comma - start);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
        if (equals_ignoring_case(item, token)) return true;
        start = comma + 1;
    }
    return false;
}

std::string_view MessageHead::find(std::string_view name) const {
    for (const HeaderField& field : headers)
        if (equals_ignoring_case(field.name, name)) return field.value;
    return {};
}

size_t MessageHead::count(std::string_view name) const {
    size_t found = 0;
    for (const HeaderField& field : headers) found += equals_ignoring_case(field.name, name);
    return found;
}

} // namespace wr::net
