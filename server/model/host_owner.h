#pragma once
// Which zone a host belongs to when zones nest (example.com and sub.example.com): the one whose
// domain holds it most closely. Only that zone may route it (a room's host or route, a listed
// host), and the edge sends it there; a less specific zone cannot take its traffic. Pure.
#include <optional>
#include <string_view>

namespace wr::model {

// The name of the zone that owns `host` (lowercase, no trailing dot): `host` itself or its
// nearest parent domain for which is_zone(name) holds; nullopt when none does. The view points
// into `host`. "pay.sub.example.com" → "sub.example.com" when both it and "example.com" are zones.
template <typename IsZone> std::optional<std::string_view> owning_zone_name(std::string_view host, IsZone&& is_zone) {
    while (!host.empty()) {
        if (is_zone(host)) return host;
        const size_t dot = host.find('.');
        if (dot == std::string_view::npos) break;
        host.remove_prefix(dot + 1);
    }
    return std::nullopt;
}

} // namespace wr::model
