// Keeping wr's cookie out of shared caches.
#include "edge/cookie_caching.h"

#include "util/trim.h"

namespace wr::edge {
namespace {

// Whether one Cache-Control value names a directive that keeps the answer from shared caches.
// Directives are split at commas; a quoted argument holding a comma (private="a, b") is split too,
// but its pieces are never a bare `private` or `no-store`.
bool keeps_shared_caches_out(std::string_view value) {
    while (!value.empty()) {
        const size_t comma = value.find(',');
        const std::string_view directive = util::trim_blanks(value.substr(0, comma));
        if (net::equals_ignoring_case(directive, "no-store") || net::equals_ignoring_case(directive, "private")) return true;
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    return false;
}

} // namespace

bool cookie_needs_private(const net::MessageHead& response) {
    for (const net::HeaderField& field : response.headers)
        if (net::equals_ignoring_case(field.name, "cache-control") && keeps_shared_caches_out(field.value)) return false;
    return true;
}

} // namespace wr::edge
