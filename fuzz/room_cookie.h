#pragma once
// For the fuzz targets that forward a visitor's head to the origin: whether any Cookie field of
// `head` still holds a cookie named exactly `name`, read pair by pair as the edge writes them
// ("a=1; b=2"). By name, not by substring: "___cfwaitingroom" is another cookie.
#include <string_view>

#include "net/http_message.h"

namespace wr::fuzz {

inline bool carries_cookie(const wr::net::MessageHead& head, std::string_view name) {
    for (const wr::net::HeaderField& field : head.headers) {
        if (!wr::net::equals_ignoring_case(field.name, "cookie")) continue;
        std::string_view rest = field.value;
        while (!rest.empty()) {
            const size_t end = rest.find("; ");
            const std::string_view pair = rest.substr(0, end);
            if (pair.substr(0, pair.find('=')) == name) return true;
            rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 2);
        }
    }
    return false;
}

} // namespace wr::fuzz
