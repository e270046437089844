#pragma once
// A room's ordered bypass rules as the control plane manages them. Every operation returns
// the room's whole list, as Cloudflare's rules endpoints do.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/room.h"
#include "model/rule.h"
#include "store/database.h"

namespace wr::control {

// Where PATCH moves a rule: {"index": N} (1-based), {"before": id} or {"after": id}.
struct RulePosition {
    enum class Kind { index, before, after } kind = Kind::index;
    int64_t index = 1;
    std::string rule_id;
};

// field_prefix: "" when the client sent one rule object, "rules" when it sent an array (errors
// then name "rules[i].expression").
std::vector<model::Rule> append_rules(store::Connection& connection, util::TimePoint now, const model::Room& room,
                                      const std::vector<model::RuleSettings>& rules, const std::string& field_prefix);
// Rules that stay the same at the same position keep their id, version and time.
std::vector<model::Rule> replace_rules(store::Connection& connection, util::TimePoint now, const model::Room& room,
                                       const std::vector<model::RuleSettings>& rules);
std::vector<model::Rule> update_rule(store::Connection& connection, util::TimePoint now, const model::Room& room,
                                     std::string_view rule_id, const model::RuleSettings& settings,
                                     const std::optional<RulePosition>& position);
std::vector<model::Rule> delete_rule(store::Connection& connection, const model::Room& room, std::string_view rule_id);

// The rule's stored settings, for PATCH to apply a partial body onto; throws not_found.
model::RuleSettings rule_settings(store::Connection& connection, const model::Room& room, std::string_view rule_id);

} // namespace wr::control
