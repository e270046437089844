// The audit log's entries of configuration changes, written beside the changes.
#include "control/audit_trail.h"

#include <map>

#include "model/json_codec.h"
#include "store/audit_store.h"
#include "util/secure.h"

namespace wr::control {
namespace {

using nlohmann::json;

json rule_view(const model::Rule& rule, size_t index) {
    json view = model::settings_to_json(rule.settings);
    view["position"] = index + 1;
    return view;
}

model::AuditObject rule_object(const model::Zone& zone, const model::Room& room, const model::Rule& rule) {
    model::AuditObject object = audit_object(zone, room);
    object.type = "rule";
    object.id = rule.id;
    object.name = rule.settings.description;
    object.room_id = room.id;
    object.room_name = room.settings.name;
    return object;
}

} // namespace

const std::vector<std::string_view>& secret_fields() {
    static const std::vector<std::string_view> k_fields{"secret", "token", "turnstile_secret", "cookie_key", "password"};
    return k_fields;
}

AuditTrail::AuditTrail(store::Connection& connection, model::AuditActor actor) : m_connection(connection), m_actor(std::move(actor)) {}

void AuditTrail::write(std::string action, const model::AuditObject& object, const json& before, const json& after) {
    model::AuditEntry entry;
    entry.changes = model::diff_fields(before, after, secret_fields());
    if (entry.changes.empty() && action == "update") return;
    entry.id = util::new_id();
    entry.actor = m_actor;
    entry.action = std::move(action);
    entry.object = object;
    store::insert_audit_entry(m_connection, entry);
    ++m_written;
}

void AuditTrail::created(const model::AuditObject& object, const json& after) { write("create", object, nullptr, after); }
void AuditTrail::updated(const model::AuditObject& object, const json& before, const json& after) { write("update", object, before, after); }
void AuditTrail::deleted(const model::AuditObject& object, const json& before) { write("delete", object, before, nullptr); }

void AuditTrail::rules_changed(const model::Zone& zone, const model::Room& room, const std::vector<model::Rule>& before,
                               const std::vector<model::Rule>& after) {
    std::map<std::string, size_t> was;
    for (size_t i = 0; i < before.size(); ++i) was.emplace(before[i].id, i);
    for (size_t i = 0; i < after.size(); ++i) {
        const auto it = was.find(after[i].id);
        if (it == was.end()) {
            created(rule_object(zone, room, after[i]), rule_view(after[i], i));
        } else {
            updated(rule_object(zone, room, after[i]), rule_view(before[it->second], it->second), rule_view(after[i], i));
            was.erase(it);
        }
    }
    for (const auto& [id, index] : was) deleted(rule_object(zone, room, before[index]), rule_view(before[index], index));
}

model::AuditObject audit_object(const model::Zone& zone) {
    return {.type = "zone", .id = zone.id, .name = zone.settings.name, .zone_id = zone.id, .zone_name = zone.settings.name};
}

json audit_view(const model::Zone& zone) {
    json view = model::to_json(zone);
    for (const char* read_only : {"id", "status", "created_on", "modified_on"}) view.erase(read_only);
    return view;
}

model::AuditObject audit_settings_object(const model::Zone& zone) {
    model::AuditObject object = audit_object(zone);
    object.type = "zone_settings";
    return object;
}

model::AuditObject audit_object(const model::Zone& zone, const model::Room& room) {
    return {.type = "waiting_room", .id = room.id, .name = room.settings.name, .zone_id = zone.id, .zone_name = zone.settings.name};
}

model::AuditObject audit_object(const model::Zone& zone, const model::Room& room, const model::Event& event) {
    return {.type = "event", .id = event.id, .name = event.settings.name, .zone_id = zone.id, .zone_name = zone.settings.name,
            .room_id = room.id, .room_name = room.settings.name};
}

model::AuditObject audit_object(const model::Token& token) { return {.type = "token", .id = token.id, .name = token.name}; }

json audit_view(const model::Token& token) {
    return {{"name", token.name}, {"scope", model::to_string(token.scope)}, {"zone_id", token.zone_id ? json(*token.zone_id) : json(nullptr)}};
}

model::AuditObject audit_object(const model::Destination& destination) {
    return {.type = "notification_destination", .id = destination.id, .name = destination.settings.name};
}

json audit_view(const model::Destination& destination) {
    json view = model::settings_to_json(destination.settings);
    view["secret"] = destination.settings.secret;
    return view;
}

} // namespace wr::control
