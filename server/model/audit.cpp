// Field-by-field differences of configuration objects, for the audit log.
#include "model/audit.h"

#include <algorithm>

#include "util/time_format.h"

namespace wr::model {
namespace {

using nlohmann::json;

bool is_secret(std::string_view field, const std::vector<std::string_view>& secrets) {
    // A secret nested in an object is a secret too: match on the last name of the path.
    const size_t dot = field.rfind('.');
    const std::string_view name = dot == std::string_view::npos ? field : field.substr(dot + 1);
    return std::find(secrets.begin(), secrets.end(), name) != secrets.end();
}

json masked(const json& value) { return value.is_null() ? json(nullptr) : json(k_masked_secret); }

void diff_into(const std::string& prefix, const json& before, const json& after, const std::vector<std::string_view>& secrets,
               std::vector<AuditChange>& out) {
    const bool nested = before.is_object() || after.is_object();
    if (nested && (before.is_object() || before.is_null()) && (after.is_object() || after.is_null()) &&
        !(prefix.size() && is_secret(prefix, secrets))) {
        // The union of both sides' fields; json objects iterate in key order.
        std::vector<std::string> keys;
        if (before.is_object())
            for (const auto& item : before.items()) keys.push_back(item.key());
        if (after.is_object())
            for (const auto& item : after.items()) keys.push_back(item.key());
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        static const json k_null;
        for (const std::string& key : keys) {
            const json& from = before.is_object() && before.contains(key) ? before.at(key) : k_null;
            const json& to = after.is_object() && after.contains(key) ? after.at(key) : k_null;
            diff_into(prefix.empty() ? key : prefix + "." + key, from, to, secrets, out);
        }
        return;
    }
    if (before == after) return;
    if (is_secret(prefix, secrets)) {
        out.push_back({prefix, masked(before), masked(after)});
        return;
    }
    out.push_back({prefix, before, after});
}

} // namespace

std::vector<AuditChange> diff_fields(const json& before, const json& after, const std::vector<std::string_view>& secrets) {
    std::vector<AuditChange> changes;
    diff_into("", before, after, secrets, changes);
    return changes;
}

json changes_to_json(const std::vector<AuditChange>& changes) {
    json out = json::array();
    for (const AuditChange& change : changes) out.push_back({{"field", change.field}, {"before", change.before}, {"after", change.after}});
    return out;
}

std::vector<AuditChange> changes_from_json(const json& changes) {
    std::vector<AuditChange> out;
    if (!changes.is_array()) return out;
    for (const json& change : changes)
        if (change.is_object()) out.push_back({change.value("field", ""), change.value("before", json()), change.value("after", json())});
    return out;
}

json to_json(const AuditEntry& entry) {
    const auto optional_text = [](const std::string& text) { return text.empty() ? json(nullptr) : json(text); };
    return {{"id", entry.id},
            {"when", util::format_iso8601(entry.actor.when)},
            {"token", entry.actor.token_id.empty() ? json(nullptr) : json{{"id", entry.actor.token_id}, {"name", entry.actor.token_name}}},
            {"address", entry.actor.address},
            {"via", entry.actor.via},
            {"action", entry.action},
            {"object",
             {{"type", entry.object.type},
              {"id", optional_text(entry.object.id)},
              {"name", optional_text(entry.object.name)},
              {"zone", entry.object.zone_id.empty() ? json(nullptr) : json{{"id", entry.object.zone_id}, {"name", entry.object.zone_name}}},
              {"room", entry.object.room_id.empty() ? json(nullptr) : json{{"id", entry.object.room_id}, {"name", entry.object.room_name}}}}},
            {"changes", changes_to_json(entry.changes)}};
}

} // namespace wr::model
