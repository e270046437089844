// `wr tokens …`: API tokens for people and pipelines.
#include <iostream>

#include "commands.h"
#include "output.h"

namespace wr::cli {

void add_token_commands(CLI::App& root, Context& context) {
    CLI::App* tokens = root.add_subcommand("tokens", "Manage admin API tokens");
    tokens->require_subcommand(1);
    {
        struct Options {
            std::string name;
            std::string scope;
            std::string zone;
        };
        auto options = std::make_shared<Options>();
        CLI::App* create = tokens->add_subcommand("create", "Create a token; it is shown once");
        create->add_option("--name", options->name, "What the token is for")->required();
        create->add_option("--scope", options->scope, "read, edit, or edge (an edge node's token: configuration, cookie keys, analytics)")
            ->required()
            ->check(CLI::IsMember({"read", "edit", "edge"}));
        create->add_option("--zone", options->zone, "Limit the token to one zone (id or name)");
        create->footer("Example:\n  wr tokens create --name ci --scope edit --zone example.com\n"
                       "  wr tokens create --name edge-1 --scope edge     # for wr serve --role edge --control-token");
        create->callback([&context, options] {
            nlohmann::json body = {{"name", options->name}, {"scope", options->scope}};
            if (!options->zone.empty()) body["zone_id"] = options->zone;
            const nlohmann::json created = context.client().post("/client/v4/tokens", body);
            if (context.json_output()) {
                std::cout << created.dump(2) << '\n';
                return;
            }
            std::cout << created.value("token", "") << '\n';
            std::cerr << "token " << created.value("id", "") << " (" << options->scope << ") created; it is shown only once\n";
        });
    }
    {
        CLI::App* list = tokens->add_subcommand("list", "List tokens (never their secrets)");
        list->footer("Example:\n  wr tokens list");
        list->callback([&context] {
            print_list(context, context.client().get("/client/v4/tokens"),
                       {{"ID", "id"}, {"NAME", "name"}, {"SCOPE", "scope"}, {"ZONE", "zone_id"}, {"CREATED", "created_on"},
                        {"LAST USED", "last_used_on"}});
        });
    }
    {
        auto id = std::make_shared<std::string>();
        CLI::App* revoke = tokens->add_subcommand("revoke", "Revoke a token");
        revoke->add_option("id", *id, "Token id")->required();
        revoke->footer("Example:\n  wr tokens revoke 3f2a…");
        revoke->callback([&context, id] {
            print_done(context, "revoked token " + *id, context.client().del("/client/v4/tokens/" + *id));
        });
    }
}

} // namespace wr::cli
