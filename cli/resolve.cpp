// Resolves names to ids through the admin API.
#include "resolve.h"

#include "context.h"
#include "util/escape.h"

namespace wr::cli {

std::string zone_path(const ApiClient& client, const std::string& zone) {
    // The API accepts an id or a name in the path; asking for it also checks it exists.
    const nlohmann::json found = client.get("/client/v4/zones/" + util::percent_encode(zone));
    return "/client/v4/zones/" + found.value("id", "");
}

std::string RoomRef::path() const { return "/client/v4/zones/" + zone_id + "/waiting_rooms/" + room.value("id", ""); }

RoomRef find_room(const ApiClient& client, const std::string& room, const std::string& zone) {
    if (!zone.empty()) {
        const nlohmann::json zone_object = client.get("/client/v4/zones/" + util::percent_encode(zone));
        const std::string zone_id = zone_object.value("id", "");
        return RoomRef{zone_id, zone_object.value("name", ""),
                       client.get("/client/v4/zones/" + zone_id + "/waiting_rooms/" + util::percent_encode(room))};
    }
    std::vector<RoomRef> matches;
    for (const auto& zone_object : client.get_all("/client/v4/zones")) {
        const std::string zone_id = zone_object.value("id", "");
        for (const auto& candidate : client.get_all("/client/v4/zones/" + zone_id + "/waiting_rooms"))
            if (candidate.value("id", "") == room || candidate.value("name", "") == room)
                matches.push_back(RoomRef{zone_id, zone_object.value("name", ""), candidate});
    }
    if (matches.empty()) throw CliError("no waiting room has the id or name " + room);
    if (matches.size() > 1) {
        std::string zones;
        for (const RoomRef& match : matches) zones += (zones.empty() ? "" : ", ") + match.zone_name;
        throw CliError("several zones have a waiting room named " + room + " (" + zones + "); add --zone");
    }
    return matches.front();
}

std::string event_path(const ApiClient& client, const RoomRef& room, const std::string& event) {
    const nlohmann::json found = client.get(room.path() + "/events/" + util::percent_encode(event));
    return room.path() + "/events/" + found.value("id", "");
}

std::string rule_id(const ApiClient& client, const RoomRef& room, const std::string& rule) {
    const nlohmann::json rules = client.get(room.path() + "/rules");
    for (const auto& item : rules)
        if (item.value("id", "") == rule) return rule;
    if (!rule.empty() && rule.find_first_not_of("0123456789") == std::string::npos && rule.size() < 6) {
        const size_t position = std::stoul(rule);
        if (position >= 1 && position <= rules.size()) return rules[position - 1].value("id", "");
        throw CliError("the waiting room has " + std::to_string(rules.size()) + " rules; there is no rule " + rule);
    }
    std::string match;
    for (const auto& item : rules) {
        if (item.value("description", "") != rule) continue;
        if (!match.empty()) throw CliError("several rules have the description \"" + rule + "\"; use the rule id");
        match = item.value("id", "");
    }
    if (match.empty()) throw CliError("no rule of waiting room " + room.room.value("name", "") + " has the id, position or description " + rule);
    return match;
}

} // namespace wr::cli
