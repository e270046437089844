// Writes and reads the configuration document that control nodes hand to edges. Settings use the
// API's own JSON (json_codec), so a field the API knows travels without a second definition.
#include "model/config_document_json.h"

#include "model/json_codec.h"

namespace wr::model {
namespace {

using nlohmann::json;

int64_t to_ms(util::TimePoint time) { return time.time_since_epoch().count(); }
util::TimePoint from_ms(int64_t ms) { return util::TimePoint{util::Milliseconds{ms}}; }

// Reads the record fields that the API's settings readers do not: ids, versions, timestamps.
class RecordFields {
public:
    RecordFields(const json& object, std::string prefix, FieldErrors& errors)
        : m_object(object), m_prefix(std::move(prefix)), m_errors(errors) {}

    std::string text(const char* key) {
        const auto it = m_object.find(key);
        if (it != m_object.end() && it->is_string()) return it->get<std::string>();
        m_errors.push_back({m_prefix + key, "must be a string"});
        return {};
    }
    int64_t integer(const char* key) {
        const auto it = m_object.find(key);
        if (it != m_object.end() && it->is_number_integer()) return it->get<int64_t>();
        m_errors.push_back({m_prefix + key, "must be an integer"});
        return 0;
    }
    util::TimePoint time(const char* key) { return from_ms(integer(key)); }
    const json& array(const char* key) {
        static const json k_empty = json::array();
        const auto it = m_object.find(key);
        if (it != m_object.end() && it->is_array()) return *it;
        m_errors.push_back({m_prefix + key, "must be an array"});
        return k_empty;
    }
    const json& object(const char* key) {
        static const json k_empty = json::object();
        const auto it = m_object.find(key);
        if (it != m_object.end() && it->is_object()) return *it;
        m_errors.push_back({m_prefix + key, "must be an object"});
        return k_empty;
    }

private:
    const json& m_object;
    std::string m_prefix;
    FieldErrors& m_errors;
};

// Adds `prefix` to the field of every error the API's readers reported.
void append_prefixed(FieldErrors& into, const FieldErrors& errors, const std::string& prefix) {
    for (const FieldError& error : errors)
        into.push_back({prefix + (error.field.empty() ? "" : error.field), error.message});
}

bool require_object(const json& value, const std::string& where, FieldErrors& errors) {
    if (value.is_object()) return true;
    errors.push_back({where, "must be an object"});
    return false;
}

json event_to_json(const Event& event) {
    return {{"id", event.id},
            {"room_id", event.room_id},
            {"created_on", to_ms(event.created_on)},
            {"modified_on", to_ms(event.modified_on)},
            {"settings", settings_to_json(event.settings)}};
}

json rule_to_json(const Rule& rule) {
    return {{"id", rule.id},
            {"version", rule.version},
            {"last_updated", to_ms(rule.last_updated)},
            {"settings", settings_to_json(rule.settings)}};
}

json room_to_json(const RoomDocument& room) {
    json events = json::array();
    for (const Event& event : room.events) events.push_back(event_to_json(event));
    json rules = json::array();
    for (const Rule& rule : room.rules) rules.push_back(rule_to_json(rule));
    return {{"id", room.room.id},
            {"zone_id", room.room.zone_id},
            {"created_on", to_ms(room.room.created_on)},
            {"modified_on", to_ms(room.room.modified_on)},
            {"settings", settings_to_json(room.room.settings)},
            {"events", std::move(events)},
            {"rules", std::move(rules)}};
}

json zone_to_json(const ZoneDocument& zone) {
    json rooms = json::array();
    for (const RoomDocument& room : zone.rooms) rooms.push_back(room_to_json(room));
    return {{"id", zone.zone.id},
            {"created_on", to_ms(zone.zone.created_on)},
            {"modified_on", to_ms(zone.zone.modified_on)},
            {"settings", settings_to_json(zone.zone.settings)},
            {"room_settings", to_json(zone.room_settings)},
            {"waiting_rooms", std::move(rooms)}};
}

Event read_event(const json& value, const std::string& where, FieldErrors& errors) {
    Event event;
    if (!require_object(value, where, errors)) return event;
    RecordFields fields(value, where + ".", errors);
    event.id = fields.text("id");
    event.room_id = fields.text("room_id");
    event.created_on = fields.time("created_on");
    event.modified_on = fields.time("modified_on");
    append_prefixed(errors, read_event_settings(fields.object("settings"), BodyMode::create, event.settings), where + ".settings.");
    return event;
}

Rule read_rule(const json& value, const std::string& where, FieldErrors& errors) {
    Rule rule;
    if (!require_object(value, where, errors)) return rule;
    RecordFields fields(value, where + ".", errors);
    rule.id = fields.text("id");
    rule.version = fields.integer("version");
    rule.last_updated = fields.time("last_updated");
    append_prefixed(errors, read_rule_settings(fields.object("settings"), BodyMode::create, rule.settings), where + ".settings.");
    return rule;
}

RoomDocument read_room(const json& value, const std::string& where, FieldErrors& errors) {
    RoomDocument room;
    if (!require_object(value, where, errors)) return room;
    RecordFields fields(value, where + ".", errors);
    room.room.id = fields.text("id");
    room.room.zone_id = fields.text("zone_id");
    room.room.created_on = fields.time("created_on");
    room.room.modified_on = fields.time("modified_on");
    append_prefixed(errors, read_room_settings(fields.object("settings"), BodyMode::create, room.room.settings), where + ".settings.");
    const json& events = fields.array("events");
    for (size_t i = 0; i < events.size(); ++i)
        room.events.push_back(read_event(events[i], where + ".events[" + std::to_string(i) + "]", errors));
    const json& rules = fields.array("rules");
    for (size_t i = 0; i < rules.size(); ++i)
        room.rules.push_back(read_rule(rules[i], where + ".rules[" + std::to_string(i) + "]", errors));
    return room;
}

ZoneDocument read_zone(const json& value, const std::string& where, FieldErrors& errors) {
    ZoneDocument zone;
    if (!require_object(value, where, errors)) return zone;
    RecordFields fields(value, where + ".", errors);
    zone.zone.id = fields.text("id");
    zone.zone.created_on = fields.time("created_on");
    zone.zone.modified_on = fields.time("modified_on");
    append_prefixed(errors, read_zone_settings(fields.object("settings"), BodyMode::create, zone.zone.settings), where + ".settings.");
    append_prefixed(errors, read_zone_room_settings(fields.object("room_settings"), BodyMode::create, zone.room_settings),
                    where + ".room_settings.");
    const json& rooms = fields.array("waiting_rooms");
    for (size_t i = 0; i < rooms.size(); ++i)
        zone.rooms.push_back(read_room(rooms[i], where + ".waiting_rooms[" + std::to_string(i) + "]", errors));
    return zone;
}

} // namespace

json config_document_to_json(const ConfigDocument& document) {
    json zones = json::array();
    for (const ZoneDocument& zone : document.zones) zones.push_back(zone_to_json(zone));
    return {{"format", k_config_document_format}, {"zones", std::move(zones)}};
}

FieldErrors read_config_document(const json& value, ConfigDocument& document) {
    FieldErrors errors;
    if (!require_object(value, "", errors)) return errors;
    RecordFields fields(value, "", errors);
    const int64_t format = fields.integer("format");
    if (!errors.empty()) return errors;
    if (format != k_config_document_format)
        return {{"format", "is " + std::to_string(format) + ", but this wr reads format " + std::to_string(k_config_document_format) +
                               " (upgrade the edge to the control node's version)"}};
    ConfigDocument read;
    const json& zones = fields.array("zones");
    for (size_t i = 0; i < zones.size(); ++i) read.zones.push_back(read_zone(zones[i], "zones[" + std::to_string(i) + "]", errors));
    if (errors.empty()) document = std::move(read);
    return errors;
}

} // namespace wr::model
