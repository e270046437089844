// `wr rules …`: the ordered bypass rules of a waiting room.
#include <iostream>

#include "body_options.h"
#include "commands.h"
#include "output.h"
#include "resolve.h"
#include "util/files.h"

namespace wr::cli {
namespace {

const std::vector<Column> k_rule_columns = {
    {"#", "position"}, {"ID", "id"}, {"ENABLED", "enabled"}, {"EXPRESSION", "expression"}, {"DESCRIPTION", "description"}};

void print_rules(const Context& context, nlohmann::json rules) {
    if (!context.json_output())
        for (size_t i = 0; i < rules.size(); ++i) rules[i]["position"] = i + 1;
    print_list(context, rules, k_rule_columns);
}

struct Target {
    std::string room;
    std::string zone;
    std::string rule;
};

CLI::App* rule_command(CLI::App* rules, const char* name, const char* help, Target& target, bool with_rule) {
    CLI::App* command = rules->add_subcommand(name, help);
    command->add_option("room", target.room, "Room id or name")->required();
    if (with_rule) command->add_option("rule", target.rule, "Rule id, position (1 is first) or description")->required();
    command->add_option("--zone", target.zone, "Zone id or name (when several zones have rooms of that name)");
    return command;
}

} // namespace

void add_rule_commands(CLI::App& root, Context& context) {
    CLI::App* rules = root.add_subcommand("rules", "Manage the bypass rules of a waiting room");
    rules->require_subcommand(1);

    {
        auto target = std::make_shared<Target>();
        auto body = std::make_shared<BodyOptions>();
        CLI::App* create = rule_command(rules, "create", "Append a bypass rule", *target, false);
        body->add_string(create, "--expression", "expression", "When to bypass, e.g. starts_with(http.request.uri.path, \"/static/\")");
        body->add_string(create, "--description", "description", "Description");
        body->add_boolean(create, "--enabled", "enabled", "Whether the rule applies (default on)");
        create->get_option("--expression")->required();
        create->footer("Example:\n  wr rules create shop --expression 'starts_with(http.request.uri.path, \"/static/\")' "
                       "--description assets");
        create->callback([&context, target, body] {
            const ApiClient client = context.client();
            nlohmann::json rule = body->body();
            rule["action"] = "bypass_waiting_room";
            const RoomRef room = find_room(client, target->room, target->zone);
            print_rules(context, naming_flags(body->flags(), [&] { return client.post(room.path() + "/rules", rule); }));
        });
    }
    {
        auto target = std::make_shared<Target>();
        CLI::App* list = rule_command(rules, "list", "List a room's rules in evaluation order", *target, false);
        list->footer("Example:\n  wr rules list shop");
        list->callback([&context, target] {
            const ApiClient client = context.client();
            print_rules(context, client.get(find_room(client, target->room, target->zone).path() + "/rules"));
        });
    }
    {
        auto target = std::make_shared<Target>();
        auto body = std::make_shared<BodyOptions>();
        auto position = std::make_shared<int64_t>(0);
        auto before = std::make_shared<std::string>();
        auto after = std::make_shared<std::string>();
        CLI::App* update = rule_command(rules, "update", "Change or move a rule", *target, true);
        body->add_string(update, "--expression", "expression", "New expression");
        body->add_string(update, "--description", "description", "New description");
        body->add_boolean(update, "--enabled", "enabled", "Whether the rule applies");
        auto* position_option = update->add_option("--position", *position, "Move to this position (1 is first)");
        auto* before_option = update->add_option("--before", *before, "Move before this rule (id)");
        auto* after_option = update->add_option("--after", *after, "Move after this rule (id)");
        position_option->excludes(before_option)->excludes(after_option);
        before_option->excludes(after_option);
        update->footer("Example:\n  wr rules update shop 2 --position 1\n  wr rules update shop assets --no-enabled");
        update->callback([&context, target, body, position, before, after, position_option, before_option, after_option] {
            const ApiClient client = context.client();
            const RoomRef room = find_room(client, target->room, target->zone);
            const std::string id = rule_id(client, room, target->rule);
            nlohmann::json patch = body->body();
            if (position_option->count() > 0) patch["position"] = {{"index", *position}};
            if (before_option->count() > 0) patch["position"] = {{"before", *before}};
            if (after_option->count() > 0) patch["position"] = {{"after", *after}};
            print_rules(context, naming_flags(body->flags(), [&] { return client.patch(room.path() + "/rules/" + id, patch); }));
        });
    }
    {
        auto target = std::make_shared<Target>();
        CLI::App* remove = rule_command(rules, "delete", "Delete a rule", *target, true);
        remove->footer("Example:\n  wr rules delete shop 1");
        remove->callback([&context, target] {
            const ApiClient client = context.client();
            const RoomRef room = find_room(client, target->room, target->zone);
            print_rules(context, client.del(room.path() + "/rules/" + rule_id(client, room, target->rule)));
        });
    }
    {
        auto target = std::make_shared<Target>();
        auto file = std::make_shared<std::string>();
        CLI::App* replace = rule_command(rules, "replace", "Replace all of a room's rules with a JSON array from a file", *target, false);
        replace->add_option("-f,--file", *file, "JSON array of {expression, description, enabled} ('-' for stdin)")->required();
        replace->footer("Example:\n  wr rules replace shop -f rules.json");
        replace->callback([&context, target, file] {
            std::string text;
            if (*file == "-") {
                text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
            } else {
                const auto content = util::read_text_file(*file);
                if (!content) throw CliError("cannot read " + *file);
                text = *content;
            }
            nlohmann::json list = nlohmann::json::parse(text, nullptr, false);
            if (list.is_discarded() || !list.is_array()) throw CliError(*file + " must hold a JSON array of rules");
            for (auto& rule : list)
                if (rule.is_object() && !rule.contains("action")) rule["action"] = "bypass_waiting_room";
            const ApiClient client = context.client();
            print_rules(context, client.put(find_room(client, target->room, target->zone).path() + "/rules", list));
        });
    }
}

} // namespace wr::cli
