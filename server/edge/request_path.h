#pragma once
// Normalises what a visitor asked for into what routing compares: the host without port and
// case, and the path with unreserved percent-escapes decoded, dot segments removed and repeated
// slashes collapsed, so that no encoding of a path can slip past the room that guards it.
#include <string>
#include <string_view>

namespace wr::edge {

// "Shop.Example.com:8080" → "shop.example.com"; also strips a trailing dot and IPv6 brackets' port.
std::string normalize_host(std::string_view host_header);

struct SplitTarget {
    std::string_view path;  // raw, as sent
    std::string_view query; // without the '?', "" when none
};
// Splits a request target (origin-form or absolute-form) into path and query.
SplitTarget split_target(std::string_view target);

// "/shop/%7Euser/./a/../b//c" → "/shop/~user/b/c"; "%2F" stays encoded.
std::string normalize_path(std::string_view raw_path);

} // namespace wr::edge
