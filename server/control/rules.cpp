// Appends, replaces, edits, moves and deletes the bypass rules of a room.
#include "control/rules.h"

#include <algorithm>

#include "control/error.h"
#include "model/validate.h"
#include "store/rules_store.h"
#include "util/secure.h"

namespace wr::control {
namespace {

void check_rules(const std::vector<model::RuleSettings>& rules, const std::string& field_prefix) {
    model::FieldErrors errors;
    for (size_t i = 0; i < rules.size(); ++i)
        for (model::FieldError& error : model::validate_rule(rules[i]))
            errors.push_back({field_prefix.empty() ? error.field : field_prefix + "[" + std::to_string(i) + "]." + error.field,
                              std::move(error.message)});
    if (!errors.empty()) throw Error::invalid(std::move(errors));
}

void check_count(size_t count) {
    if (count > model::k_max_rules_per_room)
        throw Error::invalid("rules", "a waiting room may have at most " + std::to_string(model::k_max_rules_per_room) +
                                          " rules");
}

model::Rule new_rule(const model::RuleSettings& settings, util::TimePoint now) {
    return model::Rule{util::new_id(), settings, 1, now};
}

std::vector<model::Rule>::iterator find_rule(std::vector<model::Rule>& rules, std::string_view rule_id) {
    const auto it = std::find_if(rules.begin(), rules.end(), [&](const model::Rule& rule) { return rule.id == rule_id; });
    if (it == rules.end()) throw Error::not_found("rule", std::string(rule_id));
    return it;
}

} // namespace

std::vector<model::Rule> append_rules(store::Connection& connection, util::TimePoint now, const model::Room& room,
                                      const std::vector<model::RuleSettings>& rules, const std::string& field_prefix) {
    check_rules(rules, field_prefix);
    std::vector<model::Rule> all = store::list_rules(connection, room.id);
    for (const model::RuleSettings& settings : rules) all.push_back(new_rule(settings, now));
    check_count(all.size());
    store::write_rules(connection, room.id, all);
    return all;
}

std::vector<model::Rule> replace_rules(store::Connection& connection, util::TimePoint now, const model::Room& room,
                                       const std::vector<model::RuleSettings>& rules) {
    check_rules(rules, "rules");
    check_count(rules.size());
    const std::vector<model::Rule> existing = store::list_rules(connection, room.id);
    std::vector<model::Rule> all;
    for (size_t i = 0; i < rules.size(); ++i)
        all.push_back(i < existing.size() && existing[i].settings == rules[i] ? existing[i] : new_rule(rules[i], now));
    const bool unchanged = all.size() == existing.size() &&
                           std::equal(all.begin(), all.end(), existing.begin(),
                                      [](const model::Rule& a, const model::Rule& b) { return a.id == b.id; });
    if (!unchanged) store::write_rules(connection, room.id, all);
    return all;
}

std::vector<model::Rule> update_rule(store::Connection& connection, util::TimePoint now, const model::Room& room,
                                     std::string_view rule_id, const model::RuleSettings& settings,
                                     const std::optional<RulePosition>& position) {
    check_rules({settings}, "");
    std::vector<model::Rule> all = store::list_rules(connection, room.id);
    auto it = find_rule(all, rule_id);
    bool changed = false;
    if (it->settings != settings) {
        it->settings = settings;
        ++it->version;
        it->last_updated = now;
        changed = true;
    }
    if (position) {
        model::Rule moved = *it;
        all.erase(it);
        size_t target = 0;
        switch (position->kind) {
        case RulePosition::Kind::index:
            if (position->index < 1 || static_cast<size_t>(position->index) > all.size() + 1)
                throw Error::invalid("position.index", "must be between 1 and " + std::to_string(all.size() + 1));
            target = static_cast<size_t>(position->index - 1);
            break;
        case RulePosition::Kind::before:
        case RulePosition::Kind::after: {
            const char* field = position->kind == RulePosition::Kind::before ? "position.before" : "position.after";
            // An empty id means "before everything" or "after everything".
            if (position->rule_id.empty()) {
                target = position->kind == RulePosition::Kind::before ? 0 : all.size();
                break;
            }
            const auto anchor = std::find_if(all.begin(), all.end(), [&](const model::Rule& r) { return r.id == position->rule_id; });
            if (anchor == all.end()) throw Error::invalid(field, "no other rule of this room has the id " + position->rule_id);
            target = static_cast<size_t>(anchor - all.begin()) + (position->kind == RulePosition::Kind::after ? 1 : 0);
            break;
        }
        }
        all.insert(all.begin() + static_cast<std::ptrdiff_t>(target), std::move(moved));
        changed = true;
    }
    if (changed) store::write_rules(connection, room.id, all);
    return all;
}

std::vector<model::Rule> delete_rule(store::Connection& connection, const model::Room& room, std::string_view rule_id) {
    std::vector<model::Rule> all = store::list_rules(connection, room.id);
    all.erase(find_rule(all, rule_id));
    store::write_rules(connection, room.id, all);
    return all;
}

model::RuleSettings rule_settings(store::Connection& connection, const model::Room& room, std::string_view rule_id) {
    std::vector<model::Rule> all = store::list_rules(connection, room.id);
    return find_rule(all, rule_id)->settings;
}

} // namespace wr::control
