#pragma once
// An entry of the audit log: who changed which object of the configuration, when, from where,
// and what each field was before and after. Plain data, and the pure steps that make the field
// list (a difference of two JSON views of the object, secrets masked).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/clock.h"

namespace wr::model {

// What stands in for a secret's value, before and after: the log says it changed, never what to.
inline constexpr std::string_view k_masked_secret = "(changed)";

// Who made a change: the request's token and address, and the tool it came through.
struct AuditActor {
    util::TimePoint when{};
    std::string token_id;   // "" when no token was involved
    std::string token_name;
    std::string address;    // the admin client's address as the listener saw it
    std::string via = "api"; // api, cli, console, apply
};

struct AuditObject {
    std::string type{}; // zone, zone_settings, waiting_room, event, rule, token, notification_destination
    std::string id{};
    std::string name{};
    std::string zone_id{};   // "" for objects outside a zone
    std::string zone_name{};
    std::string room_id{};   // the room of an event or a rule, else ""
    std::string room_name{};
};

struct AuditChange {
    std::string field; // "total_active_users", "cookie_attributes.samesite"
    nlohmann::json before;
    nlohmann::json after;
};

struct AuditEntry {
    std::string id;
    AuditActor actor;
    std::string action; // create, update, delete
    AuditObject object;
    std::vector<AuditChange> changes;
};

// The fields that differ between two JSON views of an object (null for a side that does not
// exist: a creation or a deletion lists every field). Nested objects are compared field by field
// ("cookie_attributes.samesite"); arrays and scalars as whole values. Fields named in `secrets`
// keep their name, and their values become "(changed)" (null stays null), so no secret reaches
// the log even when only one side has it. Ordered by field name.
std::vector<AuditChange> diff_fields(const nlohmann::json& before, const nlohmann::json& after,
                                     const std::vector<std::string_view>& secrets = {});

// The API's shape of an entry.
nlohmann::json to_json(const AuditEntry& entry);
nlohmann::json changes_to_json(const std::vector<AuditChange>& changes);
std::vector<AuditChange> changes_from_json(const nlohmann::json& changes);

} // namespace wr::model
