// Handlers of /zones/{zone_id}/waiting_rooms/{room_id}/rules. Every one answers with the
// room's whole ordered list, as Cloudflare's do.
#include "api/routes.h"
#include "control/error.h"
#include "control/rooms.h"
#include "control/rules.h"
#include "model/json_codec.h"
#include "model/json_fields.h"
#include "model/rule.h"
#include "store/rules_store.h"

namespace wr::api {
namespace {

Reply rules_reply(const std::vector<model::Rule>& rules) {
    nlohmann::json result = nlohmann::json::array();
    for (const model::Rule& rule : rules) result.push_back(model::to_json(rule));
    return ok(result);
}

std::vector<model::RuleSettings> read_rule_list(const nlohmann::json& body, bool accept_single) {
    const bool single = accept_single && body.is_object();
    if (!single && !body.is_array())
        throw control::Error::invalid("", accept_single ? "the request body must be a rule object or an array of rules"
                                                        : "the request body must be an array of rules");
    // More than a room may hold is refused before any element is read: whatever they are, a
    // million of them must not make a million errors.
    if (!single && body.size() > model::k_max_rules_per_room)
        throw control::Error::invalid("rules", "a waiting room may have at most " + std::to_string(model::k_max_rules_per_room) +
                                                   " rules; the request body has " + std::to_string(body.size()));
    std::vector<model::RuleSettings> rules;
    model::FieldErrors errors;
    const nlohmann::json items = single ? nlohmann::json::array({body}) : body;
    for (size_t i = 0; i < items.size(); ++i) {
        model::RuleSettings settings;
        if (!items[i].is_object()) {
            errors.push_back({"rules[" + std::to_string(i) + "]", "must be a JSON object (a rule)"});
            continue;
        }
        for (model::FieldError& error : model::read_rule_settings(items[i], model::BodyMode::create, settings))
            errors.push_back({single ? error.field : "rules[" + std::to_string(i) + "]" + (error.field.empty() ? "" : ".") + error.field,
                              std::move(error.message)});
        rules.push_back(std::move(settings));
    }
    if (!errors.empty()) throw control::Error::invalid(std::move(errors));
    return rules;
}

std::optional<control::RulePosition> read_position(const nlohmann::json& body) {
    const auto it = body.find("position");
    if (it == body.end() || it->is_null()) return std::nullopt;
    if (!it->is_object() || it->size() != 1)
        throw control::Error::invalid("position", "must be one of {\"index\": N}, {\"before\": \"rule id\"}, {\"after\": \"rule id\"}");
    control::RulePosition position;
    const std::string key = it->begin().key();
    const nlohmann::json& value = it->begin().value();
    if (key == "index") {
        const std::optional<int64_t> index = model::integer_of(value);
        if (!index) throw control::Error::invalid("position.index", "must be an integer (1 is the first rule)");
        position.kind = control::RulePosition::Kind::index;
        position.index = *index;
    } else if (key == "before" || key == "after") {
        if (!value.is_string()) throw control::Error::invalid("position." + key, "must be a rule id");
        position.kind = key == "before" ? control::RulePosition::Kind::before : control::RulePosition::Kind::after;
        position.rule_id = value.get<std::string>();
    } else {
        throw control::Error::invalid("position", "must be one of {\"index\": N}, {\"before\": \"rule id\"}, {\"after\": \"rule id\"}");
    }
    return position;
}

template <typename Work> Reply with_room(Services& services, Request& request, bool write, Work&& work) {
    if (!write)
        return services.database.read([&](store::Connection& connection) {
            return rules_reply(work(connection, control::resolve_room(connection, *request.zone, request.param("room_id"))));
        });
    // Every change to a room's rules is logged rule by rule, from the list before and after.
    return audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Room room = control::resolve_room(connection, *request.zone, request.param("room_id"));
        const std::vector<model::Rule> before = store::list_rules(connection, room.id);
        const std::vector<model::Rule> after = work(connection, room);
        trail.rules_changed(*request.zone, room, before, after);
        return rules_reply(after);
    });
}

Reply list_rules(Services& services, Request& request) {
    return with_room(services, request, false,
                     [](store::Connection& connection, const model::Room& room) { return store::list_rules(connection, room.id); });
}

Reply create_rules(Services& services, Request& request) {
    const nlohmann::json body = request.json_body();
    const auto rules = read_rule_list(body, true);
    const std::string prefix = body.is_array() ? "rules" : "";
    return with_room(services, request, true, [&](store::Connection& connection, const model::Room& room) {
        return control::append_rules(connection, services.clock.now(), room, rules, prefix);
    });
}

Reply replace_rules(Services& services, Request& request) {
    const auto rules = read_rule_list(request.json_body(), false);
    return with_room(services, request, true, [&](store::Connection& connection, const model::Room& room) {
        return control::replace_rules(connection, services.clock.now(), room, rules);
    });
}

Reply patch_rule(Services& services, Request& request) {
    const nlohmann::json body = request.json_body();
    const std::optional<control::RulePosition> position = body.is_object() ? read_position(body) : std::nullopt;
    return with_room(services, request, true, [&](store::Connection& connection, const model::Room& room) {
        model::RuleSettings settings = control::rule_settings(connection, room, request.param("rule_id"));
        if (auto errors = model::read_rule_settings(body, model::BodyMode::patch, settings); !errors.empty())
            throw control::Error::invalid(std::move(errors));
        return control::update_rule(connection, services.clock.now(), room, request.param("rule_id"), settings, position);
    });
}

Reply delete_rule(Services& services, Request& request) {
    return with_room(services, request, true, [&](store::Connection& connection, const model::Room& room) {
        return control::delete_rule(connection, room, request.param("rule_id"));
    });
}

} // namespace

std::vector<Route> rule_routes() {
    return {
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/rules", Access::read, list_rules},
        {"POST", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/rules", Access::edit, create_rules},
        {"PUT", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/rules", Access::edit, replace_rules},
        {"PATCH", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/rules/{rule_id}", Access::edit, patch_rule},
        {"DELETE", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/rules/{rule_id}", Access::edit, delete_rule},
    };
}

} // namespace wr::api
