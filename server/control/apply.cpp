// Makes the stored configuration match a declarative document, and exports it as one. Apply
// goes through the same create/update/delete operations as the API, so every rule holds.
#include "control/apply.h"

#include <algorithm>
#include <set>

#include "control/error.h"
#include "control/events.h"
#include "control/rooms.h"
#include "control/rules.h"
#include "control/zones.h"
#include "model/json_codec.h"
#include "model/known_fields.h"
#include "store/events_store.h"
#include "store/rooms_store.h"
#include "store/rules_store.h"
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
    return {{"zones", json::array({std::move(zone_shape)})}};
}

class Applier {
public:
    Applier(store::Connection& connection, util::TimePoint now, const ApplyOptions& options)
        : m_connection(connection), m_now(now), m_options(options) {}

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
            apply_zone(zones[i], path);
        }
        if (m_options.prune)
            for (const model::Zone& zone : store::list_zones(m_connection, {0, -1}))
                if (!names.contains(zone.settings.name)) prune_zone(zone);
        return std::move(m_changes);
    }

private:
    void record(std::string action, std::string kind, std::string target, std::vector<std::string> fields = {}) {
        m_changes.push_back({std::move(action), std::move(kind), std::move(target), std::move(fields)});
    }

    void apply_zone(const json& object, const std::string& path) {
        model::ZoneSettings settings;
        at_path(path, [&] {
            if (auto errors = model::read_zone_settings(object, model::BodyMode::replace, settings); !errors.empty())
                throw Error::invalid(std::move(errors));
        });
        model::Zone zone;
        if (auto existing = store::find_zone_by_name(m_connection, settings.name)) {
            zone = at_path(path, [&] { return update_zone(m_connection, m_now, *existing, settings); });
            if (zone.settings != existing->settings)
                record("update", "zone", zone.settings.name,
                       changed_fields(model::settings_to_json(existing->settings), model::settings_to_json(zone.settings)));
        } else {
            zone = at_path(path, [&] { return create_zone(m_connection, m_now, settings); });
            record("create", "zone", zone.settings.name);
        }

        if (const auto it = object.find("settings"); it != object.end() && !it->is_null()) {
            model::ZoneRoomSettings room_settings;
            at_path(path + ".settings", [&] {
                if (auto errors = model::read_zone_room_settings(*it, model::BodyMode::replace, room_settings); !errors.empty())
                    throw Error::invalid(std::move(errors));
            });
            if (update_zone_room_settings(m_connection, m_now, zone, room_settings))
                record("update", "settings", zone.settings.name, {"search_engine_crawler_bypass"});
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
        if (m_options.prune)
            for (const model::Room& room : store::list_rooms(m_connection, zone.id, {0, -1}))
                if (!names.contains(room.settings.name)) {
                    delete_room(m_connection, room);
                    record("delete", "waiting_room", zone.settings.name + "/" + room.settings.name);
                }
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
            if (room.settings != existing->settings)
                record("update", "waiting_room", target,
                       changed_fields(model::settings_to_json(existing->settings), model::settings_to_json(room.settings)));
        } else {
            room = at_path(path, [&] { return create_room(m_connection, m_now, zone, settings); });
            record("create", "waiting_room", target);
        }
        apply_events(room, object, path, target);
        apply_rules(room, object, path, target);
    }

    void apply_events(const model::Room& room, const json& object, const std::string& path, const std::string& target) {
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
                record("delete", "event", target + "/" + event.settings.name);
            }
        for (const auto& [settings, event_path] : wanted) {
            std::optional<model::Event> current;
            for (model::Event& event : store::all_events(m_connection, room.id))
                if (event.settings.name == settings.name) current = std::move(event);
            if (current) {
                const model::Event updated =
                    at_path(event_path, [&] { return update_event(m_connection, m_now, room, *current, settings); });
                if (updated.settings != current->settings)
                    record("update", "event", target + "/" + settings.name,
                           changed_fields(model::settings_to_json(current->settings), model::settings_to_json(updated.settings)));
            } else {
                at_path(event_path, [&] { return create_event(m_connection, m_now, room, settings); });
                record("create", "event", target + "/" + settings.name);
            }
        }
    }

    void apply_rules(const model::Room& room, const json& object, const std::string& path, const std::string& target) {
        bool present = false;
        const json& rules = array_field(object, "rules", path, present);
        if (!present && !m_options.prune) return;
        std::vector<model::RuleSettings> wanted;
        for (size_t i = 0; i < rules.size(); ++i) {
            const std::string rule_path = path + ".rules[" + std::to_string(i) + "]";
            model::RuleSettings settings;
            at_path(rule_path, [&] {
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
        at_path(path, [&] { return replace_rules(m_connection, m_now, room, wanted); });
        record(before.empty() ? "create" : wanted.empty() ? "delete" : "update", "rules", target);
    }

    void prune_zone(const model::Zone& zone) {
        for (const model::Room& room : store::list_rooms(m_connection, zone.id, {0, -1})) {
            delete_room(m_connection, room);
            record("delete", "waiting_room", zone.settings.name + "/" + room.settings.name);
        }
        delete_zone(m_connection, zone);
        record("delete", "zone", zone.settings.name);
    }

    store::Connection& m_connection;
    util::TimePoint m_now;
    ApplyOptions m_options;
    std::vector<Change> m_changes;
};

} // namespace

std::vector<Change> apply_document(store::Connection& connection, util::TimePoint now, const json& document,
                                   const ApplyOptions& options) {
    return Applier(connection, now, options).run(document);
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
    return {{"zones", std::move(out_zones)}};
}

json to_json(const Change& change) {
    return {{"action", change.action}, {"kind", change.kind}, {"target", change.target}, {"fields", change.fields}};
}

} // namespace wr::control
