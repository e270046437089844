// Makes the stored configuration match a declarative document, and exports it as one. Apply
// goes through the same create/update/delete operations as the API, so every rule holds.
#include "control/apply.h"

#include <algorithm>
#include <set>

#include "control/audit_trail.h"
#include "control/error.h"
#include "control/events.h"
#include "control/notifications.h"
#include "control/rooms.h"
#include "control/rules.h"
#include "control/zones.h"
#include "model/json_codec.h"
#include "model/known_fields.h"
#include "model/validate.h"
#include "store/events_store.h"
#include "store/notifications_store.h"
#include "store/rooms_store.h"
#include "store/rules_store.h"
#include "store/tokens_store.h"
#include "store/zones_store.h"

namespace wr::control {
namespace {

using nlohmann::json;

// Runs one step, prefixing any error's field with the document path of the part it concerns.
template <typename Step> auto at_path(const std::string& path, Step&& step) {
    try {
        return step();
    } catch (const Error& error) {
        model::FieldErrors located;
        for (const model::FieldError& field_error : error.errors())
            located.push_back({field_error.field.empty() ? path : path + "." + field_error.field, field_error.message});
        throw Error(error.code(), error.http_status(), std::move(located));
    }
}

const json& array_field(const json& object, const char* key, const std::string& path, bool& present) {
    static const json k_empty = json::array();
    const auto it = object.find(key);
    present = it != object.end() && !it->is_null();
    if (!present) return k_empty;
    if (!it->is_array()) throw Error::invalid(path.empty() ? std::string(key) : path + "." + key, "must be an array");
    return *it;
}

std::vector<std::string> changed_fields(const json& before, const json& after) {
    std::vector<std::string> fields;
    for (const auto& [key, value] : after.items())
        if (!before.contains(key) || before[key] != value) fields.push_back(key);
    return fields;
}

std::string name_of(const json& object, const std::string& path) {
    if (!object.is_object()) throw Error::invalid(path, "must be an object");
    const auto it = object.find("name");
    if (it == object.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
        throw Error::invalid(path + ".name", "is required");
    return it->get<std::string>();
}

// An example of the document with every field a part may have: the API's own objects (their
// read-only fields are known too, so a room copied from a GET applies), with one of each list.
json document_shape() {
    model::Room room;
    room.settings.additional_routes.push_back({});
    json room_shape = model::to_json(room, {});
    room_shape["events"] = json::array({model::to_json(model::Event{})});
    room_shape["rules"] = json::array({model::to_json(model::Rule{})});
    json zone_shape = model::to_json(model::Zone{});
    zone_shape["settings"] = model::to_json(model::ZoneRoomSettings{});
    zone_shape["waiting_rooms"] = json::array({std::move(room_shape)});
    // A destination as the API shows it, and its secret, which exports leave out and a file gives.
    json destination_shape = model::to_json(model::Destination{});
    destination_shape["secret"] = "";
    return {{"zones", json::array({std::move(zone_shape)})}, {"notification_destinations", json::array({std::move(destination_shape)})}};
}

class Applier {
public:
    Applier(store::Connection& connection, util::TimePoint now, const ApplyOptions& options, AuditTrail* trail)
        : m_connection(connection), m_now(now), m_options(options), m_trail(trail) {}

    std::vector<Change> run(const json& document) {
        if (!document.is_object()) throw Error::invalid("", "the document must be a JSON object with a \"zones\" array");
        // A mistyped field would otherwise fall back to its default and apply as "no changes".
        if (model::FieldErrors unknown = model::unknown_fields(document, document_shape()); !unknown.empty())
            throw Error::invalid(std::move(unknown));
        bool present = false;
        const json& zones = array_field(document, "zones", "", present);
        if (!present) throw Error::invalid("zones", "is required");
        std::set<std::string> names;
        for (size_t i = 0; i < zones.size(); ++i) {
            const std::string path = "zones[" + std::to_string(i) + "]";
            const std::string name = name_of(zones[i], path);
            if (!names.insert(name).second) throw Error::invalid(path + ".name", "zone " + name + " appears twice");
        }
        // Deletions first: a renamed room, or a route moved to another room, would otherwise
        // clash with the room it leaves (routes are unique) until that room went.
        if (m_options.prune) prune_left_out(zones, names);
        for (size_t i = 0; i < zones.size(); ++i) apply_zone(zones[i], "zones[" + std::to_string(i) + "]");
        apply_destinations(document);
        return std::move(m_changes);
    }

private:
    void record(std::string action, std::string kind, std::string target, std::vector<std::string> fields = {},
                std::string reason = "") {
        m_changes.push_back({std::move(action), std::move(kind), std::move(target), std::move(fields), std::move(reason)});
    }

    bool has_ended(const model::EventSettings& settings) const { return !model::check_event_not_over(settings, m_now).empty(); }

    void apply_zone(const json& object, const std::string& path) {
        model::ZoneSettings settings;
        at_path(path, [&] {
            if (auto errors = model::read_zone_settings(object, model::BodyMode::replace, settings); !errors.empty())
                throw Error::invalid(std::move(errors));
        });
        model::Zone zone;
        if (auto existing = store::find_zone_by_name(m_connection, settings.name)) {
            zone = at_path(path, [&] { return update_zone(m_connection, m_now, *existing, settings); });
            if (m_trail) m_trail->updated(audit_object(zone), audit_view(*existing), audit_view(zone));
            if (zone.settings != existing->settings)
                record("update", "zone", zone.settings.name,
                       changed_fields(model::settings_to_json(existing->settings), model::settings_to_json(zone.settings)));
        } else {
            zone = at_path(path, [&] { return create_zone(m_connection, m_now, settings); });
            if (m_trail) m_trail->created(audit_object(zone), audit_view(zone));
            record("create", "zone", zone.settings.name);
        }

        if (const auto it = object.find("settings"); it != object.end() && !it->is_null()) {
            model::ZoneRoomSettings room_settings;
            at_path(path + ".settings", [&] {
                if (auto errors = model::read_zone_room_settings(*it, model::BodyMode::replace, room_settings); !errors.empty())
                    throw Error::invalid(std::move(errors));
            });
            const model::ZoneRoomSettings before = store::get_zone_room_settings(m_connection, zone.id);
            if (update_zone_room_settings(m_connection, m_now, zone, room_settings)) {
                if (m_trail) m_trail->updated(audit_settings_object(zone), model::to_json(before), model::to_json(room_settings));
                record("update", "settings", zone.settings.name, {"search_engine_crawler_bypass"});
            }
        }

        bool present = false;
        const json& rooms = array_field(object, "waiting_rooms", path, present);
        std::set<std::string> names;
        for (size_t i = 0; i < rooms.size(); ++i) {
            const std::string room_path = path + ".waiting_rooms[" + std::to_string(i) + "]";
            const std::string name = name_of(rooms[i], room_path);
            if (!names.insert(name).second) throw Error::invalid(room_path + ".name", "waiting room " + name + " appears twice");
            apply_room(zone, rooms[i], room_path);
        }
    }

    // The zones the document leaves out, and the rooms it leaves out of the zones it names.
    void prune_left_out(const json& zones, const std::set<std::string>& zone_names) {
        for (const model::Zone& zone : store::list_zones(m_connection, {0, -1}))
            if (!zone_names.contains(zone.settings.name)) prune_zone(zone);
        for (size_t i = 0; i < zones.size(); ++i) {
            const std::string path = "zones[" + std::to_string(i) + "]";
            const auto zone = store::find_zone_by_name(m_connection, zones[i]["name"].get<std::string>());
            if (!zone) continue;
            bool present = false;
            const json& rooms = array_field(zones[i], "waiting_rooms", path, present);
            std::set<std::string> names;
            for (size_t j = 0; j < rooms.size(); ++j) names.insert(name_of(rooms[j], path + ".waiting_rooms[" + std::to_string(j) + "]"));
            for (const model::Room& room : store::list_rooms(m_connection, zone->id, {0, -1}))
                if (!names.contains(room.settings.name)) delete_left_out_room(*zone, room);
        }
    }

    void delete_left_out_room(const model::Zone& zone, const model::Room& room) {
        delete_room(m_connection, room);
        if (m_trail) m_trail->deleted(audit_object(zone, room), model::settings_to_json(room.settings));
        record("delete", "waiting_room", zone.settings.name + "/" + room.settings.name);
    }

    void apply_room(const model::Zone& zone, const json& object, const std::string& path) {
        model::RoomSettings settings;
        at_path(path, [&] {
            if (auto errors = model::read_room_settings(object, model::BodyMode::replace, settings); !errors.empty())
                throw Error::invalid(std::move(errors));
        });
        const std::string target = zone.settings.name + "/" + settings.name;
        model::Room room;
        if (auto existing = store::find_room_by_name(m_connection, zone.id, settings.name)) {
            room = at_path(path, [&] { return update_room(m_connection, m_now, zone, *existing, settings); });
            if (m_trail) m_trail->updated(audit_object(zone, room), model::settings_to_json(existing->settings), model::settings_to_json(room.settings));
            if (room.settings != existing->settings)
                record("update", "waiting_room", target,
                       changed_fields(model::settings_to_json(existing->settings), model::settings_to_json(room.settings)));
        } else {
            room = at_path(path, [&] { return create_room(m_connection, m_now, zone, settings); });
            if (m_trail) m_trail->created(audit_object(zone, room), model::settings_to_json(room.settings));
            record("create", "waiting_room", target);
        }
        apply_events(zone, room, object, path, target);
        apply_rules(zone, room, object, path, target);
    }

    void apply_events(const model::Zone& zone, const model::Room& room, const json& object, const std::string& path,
                      const std::string& target) {
        bool present = false;
        const json& events = array_field(object, "events", path, present);
        if (!present && !m_options.prune) return;
        std::set<std::string> names;
        std::vector<std::pair<model::EventSettings, std::string>> wanted;
        for (size_t i = 0; i < events.size(); ++i) {
            const std::string event_path = path + ".events[" + std::to_string(i) + "]";
            const std::string name = name_of(events[i], event_path);
            if (!names.insert(name).second) throw Error::invalid(event_path + ".name", "event " + name + " appears twice");
            model::EventSettings settings;
            at_path(event_path, [&] {
                if (auto errors = model::read_event_settings(events[i], model::BodyMode::replace, settings); !errors.empty())
                    throw Error::invalid(std::move(errors));
            });
            wanted.emplace_back(std::move(settings), event_path);
        }
        // Deletions first, so that an event replacing another in the same window does not overlap it.
        for (const model::Event& event : store::all_events(m_connection, room.id))
            if (!names.contains(event.settings.name)) {
                delete_event(m_connection, event);
                if (m_trail) m_trail->deleted(audit_object(zone, room, event), model::settings_to_json(event.settings));
                record("delete", "event", target + "/" + event.settings.name);
            }
        for (const auto& [settings, event_path] : wanted) {
            std::optional<model::Event> current;
            for (model::Event& event : store::all_events(m_connection, room.id))
                if (event.settings.name == settings.name) current = std::move(event);
            if (current) {
                const model::Event updated =
                    at_path(event_path, [&] { return update_event(m_connection, m_now, room, *current, settings); });
                if (m_trail)
                    m_trail->updated(audit_object(zone, room, updated), model::settings_to_json(current->settings),
                                     model::settings_to_json(updated.settings));
                if (updated.settings != current->settings)
                    record("update", "event", target + "/" + settings.name,
                           changed_fields(model::settings_to_json(current->settings), model::settings_to_json(updated.settings)));
            } else if (has_ended(settings)) {
                // An export keeps ended events; created here, one could never run, and the API
                // refuses an end in the past. So it is left out, and the plan says so.
                at_path(event_path, [&] {
                    if (auto errors = model::validate_event(settings); !errors.empty()) throw Error::invalid(std::move(errors));
                });
                record("skip", "event", target + "/" + settings.name, {},
                       "ended at " + settings.event_end_time.text + ": an event that has ended is not created");
            } else {
                const model::Event created = at_path(event_path, [&] { return create_event(m_connection, m_now, room, settings); });
                if (m_trail) m_trail->created(audit_object(zone, room, created), model::settings_to_json(created.settings));
                record("create", "event", target + "/" + settings.name);
            }
        }
    }

    void apply_rules(const model::Zone& zone, const model::Room& room, const json& object, const std::string& path,
                     const std::string& target) {
        bool present = false;
        const json& rules = array_field(object, "rules", path, present);
        if (!present && !m_options.prune) return;
        // More rules than a room may hold are refused before any is read.
        if (rules.size() > model::k_max_rules_per_room)
            throw Error::invalid(path + ".rules", "a waiting room may have at most " + std::to_string(model::k_max_rules_per_room) +
                                                      " rules; the document gives " + std::to_string(rules.size()));
        std::vector<model::RuleSettings> wanted;
        for (size_t i = 0; i < rules.size(); ++i) {
            const std::string rule_path = path + ".rules[" + std::to_string(i) + "]";
            model::RuleSettings settings;
            at_path(rule_path, [&] {
                if (!rules[i].is_object()) throw Error::invalid("", "must be a JSON object (a rule)");
                if (auto errors = model::read_rule_settings(rules[i], model::BodyMode::replace, settings); !errors.empty())
                    throw Error::invalid(std::move(errors));
            });
            wanted.push_back(std::move(settings));
        }
        const std::vector<model::Rule> before = store::list_rules(m_connection, room.id);
        const bool same = before.size() == wanted.size() &&
                          std::equal(before.begin(), before.end(), wanted.begin(),
                                     [](const model::Rule& rule, const model::RuleSettings& s) { return rule.settings == s; });
        if (same) return;
        // replace_rules names its fields "rules[i]…" itself.
        const std::vector<model::Rule> after = at_path(path, [&] { return replace_rules(m_connection, m_now, room, wanted); });
        if (m_trail) m_trail->rules_changed(zone, room, before, after);
        record(before.empty() ? "create" : wanted.empty() ? "delete" : "update", "rules", target);
    }

    // Notification destinations, matched by name. Their secrets are never exported, so a
    // destination the document gives without one keeps the secret it has; a new one needs it.
    void apply_destinations(const json& document) {
        bool present = false;
        const json& destinations = array_field(document, "notification_destinations", "", present);
        if (!present && !m_options.prune) return;
        std::set<std::string> names;
        for (size_t i = 0; i < destinations.size(); ++i) {
            const std::string path = "notification_destinations[" + std::to_string(i) + "]";
            const std::string name = name_of(destinations[i], path);
            if (!names.insert(name).second) throw Error::invalid(path + ".name", "notification destination " + name + " appears twice");
            const auto existing = store::find_destination_by_name(m_connection, name);
            model::DestinationSettings settings;
            at_path(path, [&] {
                if (auto errors = model::read_destination_settings(destinations[i], model::BodyMode::replace, settings); !errors.empty())
                    throw Error::invalid(std::move(errors));
            });
            const auto secret = destinations[i].find("secret");
            if (secret == destinations[i].end() || secret->is_null()) {
                if (!existing)
                    throw Error::invalid(path + ".secret", "is required for a new destination (exports leave secrets out: give it "
                                                           "here, or name the environment variable holding it with secret_env)");
                settings.secret = existing->settings.secret;
            }
            if (existing) {
                const model::Destination updated = at_path(path, [&] { return update_destination(m_connection, m_now, *existing, settings); });
                if (updated.settings != existing->settings) {
                    if (m_trail) m_trail->updated(audit_object(updated), audit_view(*existing), audit_view(updated));
                    std::vector<std::string> fields = changed_fields(model::settings_to_json(existing->settings), model::settings_to_json(updated.settings));
                    if (updated.settings.secret != existing->settings.secret) fields.push_back("secret");
                    record("update", "notification_destination", name, std::move(fields));
                }
            } else {
                const model::Destination created = at_path(path, [&] { return create_destination(m_connection, m_now, settings); });
                if (m_trail) m_trail->created(audit_object(created), audit_view(created));
                record("create", "notification_destination", name);
            }
        }
        if (m_options.prune)
            for (const model::Destination& destination : store::list_destinations(m_connection))
                if (!names.contains(destination.settings.name)) {
                    delete_destination(m_connection, destination);
                    if (m_trail) m_trail->deleted(audit_object(destination), audit_view(destination));
                    record("delete", "notification_destination", destination.settings.name);
                }
    }

    // The tokens bound to the zone go with it (as with the API's zone delete): each is a change of
    // the plan and has its audit entry, so a dry run shows which tokens an apply would revoke.
    void prune_zone(const model::Zone& zone) {
        for (const model::Room& room : store::list_rooms(m_connection, zone.id, {0, -1})) delete_left_out_room(zone, room);
        std::vector<model::Token> bound;
        for (model::Token& token : store::list_tokens(m_connection))
            if (token.zone_id == zone.id) bound.push_back(std::move(token));
        delete_zone(m_connection, zone);
        if (m_trail) m_trail->deleted(audit_object(zone), audit_view(zone));
        record("delete", "zone", zone.settings.name);
        for (const model::Token& token : bound) {
            if (m_trail) m_trail->deleted(audit_object(token), audit_view(token));
            record("delete", "token", token.name + " (" + token.id + ")");
        }
    }

    store::Connection& m_connection;
    util::TimePoint m_now;
    ApplyOptions m_options;
    AuditTrail* m_trail;
    std::vector<Change> m_changes;
};

} // namespace

std::vector<Change> apply_document(store::Connection& connection, util::TimePoint now, const json& document,
                                   const ApplyOptions& options, AuditTrail* trail) {
    return Applier(connection, now, options, trail).run(document);
}

json export_document(store::Connection& connection) {
    std::vector<model::Zone> zones = store::list_zones(connection, {0, -1});
    std::sort(zones.begin(), zones.end(), [](const auto& a, const auto& b) { return a.settings.name < b.settings.name; });
    json out_zones = json::array();
    for (const model::Zone& zone : zones) {
        std::vector<model::Room> rooms = store::list_rooms(connection, zone.id, {0, -1});
        std::sort(rooms.begin(), rooms.end(), [](const auto& a, const auto& b) { return a.settings.name < b.settings.name; });
        json out_rooms = json::array();
        for (const model::Room& room : rooms) {
            json out_room = model::settings_to_json(room.settings);
            json events = json::array();
            for (const model::Event& event : store::all_events(connection, room.id))
                events.push_back(model::settings_to_json(event.settings));
            json rules = json::array();
            for (const model::Rule& rule : store::list_rules(connection, room.id)) rules.push_back(model::settings_to_json(rule.settings));
            out_room["events"] = std::move(events);
            out_room["rules"] = std::move(rules);
            out_rooms.push_back(std::move(out_room));
        }
        json out_zone = model::settings_to_json(zone.settings);
        out_zone["settings"] = model::to_json(store::get_zone_room_settings(connection, zone.id));
        out_zone["waiting_rooms"] = std::move(out_rooms);
        out_zones.push_back(std::move(out_zone));
    }
    json exported = {{"zones", std::move(out_zones)}};
    // Only when there are any, so a configuration without notifications exports as it always did.
    json destinations = json::array();
    for (const model::Destination& destination : store::list_destinations(connection)) // by name; never the secret
        destinations.push_back(model::settings_to_json(destination.settings));
    if (!destinations.empty()) exported["notification_destinations"] = std::move(destinations);
    return exported;
}

json to_json(const Change& change) {
    json out = {{"action", change.action}, {"kind", change.kind}, {"target", change.target}, {"fields", change.fields}};
    if (!change.reason.empty()) out["reason"] = change.reason;
    return out;
}

} // namespace wr::control
