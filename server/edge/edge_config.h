#pragma once
// What the edge needs to know about the configuration, in an immutable snapshot built off the
// request path: zones with their parsed origins, rooms with their routes, and each room's
// schedule precomputed into phases, so a request finds the settings in force with a few
// comparisons and no allocation.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/config_document.h"
#include "model/event.h"
#include "model/origin_url.h"
#include "model/room.h"
#include "model/rule.h"
#include "model/zone.h"
#include "analytics/room_stats.h"
#include "expr/ast.h"
#include "queue/schedule.h"

namespace wr::origin {
struct ZoneOrigin;
struct RoomGuard;
class Registry;
} // namespace wr::origin

namespace wr::edge {

struct ZoneConfig {
    std::string id;
    std::string name;
    model::OriginUrl origin;
    std::vector<std::string> hosts; // the zone's listed hosts ("*." wildcards), model::ZoneSettings::hosts
    bool search_engine_crawler_bypass = false;
    // Its origin's connection cap and measurements, which outlive this configuration (set by
    // build_edge_config; nullptr in a hand-built configuration: no cap, nothing measured).
    std::shared_ptr<origin::ZoneOrigin> upstream;
};

// The room's settings during one span of time (queue/schedule).
using Phase = queue::Phase;

struct RoomConfig {
    std::string id;
    const ZoneConfig* zone = nullptr;
    model::RoomSettings settings; // settings.origin_guard: the room's origin guard
    const model::OriginGuardSettings& origin_guard() const { return settings.origin_guard; }
    std::vector<model::Event> events;
    std::vector<model::Rule> rules;
    // The enabled bypass rules, parsed once here, in order.
    std::vector<std::shared_ptr<const expr::Node>> bypass_rules;
    std::string cookie_name;
    // Where the edge counts what happens in the room (the registry's, once loaded).
    std::shared_ptr<analytics::RoomStats> stats = std::make_shared<analytics::RoomStats>();
    // The origin guard's limits for the room, which outlive this configuration (nullptr in a
    // hand-built configuration: the configured limits apply).
    std::shared_ptr<origin::RoomGuard> guard;
    // Points into settings and events, so a RoomConfig is never copied once built.
    queue::Schedule schedule;

    const Phase& phase_at(util::TimePoint now) const;
};

struct RouteEntry {
    std::string path;           // a plain prefix
    const RoomConfig* room = nullptr;
};

// Hashing that accepts string_view keys, so lookups do not allocate.
struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

class EdgeConfig {
public:
    std::vector<std::unique_ptr<ZoneConfig>> zones;
    std::vector<std::unique_ptr<RoomConfig>> rooms;

    // The zone that serves `host` (lowercase, without port): its own name, a room's host or
    // route, or a host it lists; nullptr for every other name, even one under a zone's domain.
    // Only the zone a host belongs to (the most specific one whose domain holds it) serves it.
    const ZoneConfig* find_zone(std::string_view host) const;
    // The zone whose domain holds `host` most closely (model/host_owner.h), or nullptr.
    const ZoneConfig* owner_of(std::string_view host) const;
    // The room whose route is the longest prefix of `path` on `host`, or nullptr.
    const RoomConfig* find_room(std::string_view host, std::string_view path) const;
    const RoomConfig* find_room_by_id(std::string_view id) const;

    // Builders fill these; call index() when done.
    void index();

private:
    std::unordered_map<std::string, const ZoneConfig*, StringHash, std::equal_to<>> m_zones_by_name;
    std::unordered_map<std::string, const ZoneConfig*, StringHash, std::equal_to<>> m_zones_by_host;
    // "*.example.com" listed by a zone: "example.com" → the zone.
    std::unordered_map<std::string, const ZoneConfig*, StringHash, std::equal_to<>> m_zones_by_wildcard;
    std::unordered_map<std::string, std::vector<RouteEntry>, StringHash, std::equal_to<>> m_routes_by_host;
    std::unordered_map<std::string, const RoomConfig*, StringHash, std::equal_to<>> m_rooms_by_id;
};

// Compiles a configuration document into an edge snapshot; rooms count their analytics in
// `registry`, zones keep their origin's cap and measurements in `origins` (throwaways when null).
std::shared_ptr<const EdgeConfig> build_edge_config(const model::ConfigDocument& document, analytics::Registry* registry = nullptr,
                                                    origin::Registry* origins = nullptr);

// Builds a room's schedule from its settings and events.
void build_phases(RoomConfig& room);
// Parses the room's enabled bypass rules into bypass_rules. Rules were validated when stored;
// one that no longer parses (a hand-edited database) is skipped with a warning.
void compile_rules(RoomConfig& room);

} // namespace wr::edge
