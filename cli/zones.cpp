// `wr zones …`: the domains wr fronts and the origin each one proxies to.
#include "body_options.h"
#include "commands.h"
#include "output.h"
#include "resolve.h"
#include "util/escape.h"

namespace wr::cli {
namespace {

const char* const k_host_help =
    "Another host the edge proxies for this zone (repeatable; *.name for every name under it). The zone's own "
    "name and its rooms' hosts are always served; every other host gets 421";

const std::vector<Column> k_zone_columns = {{"ID", "id"},
                                           {"NAME", "name"},
                                           {"ORIGIN", "origin"},
                                           {"ORIGIN CONNECTIONS", "max_origin_connections"},
                                           {"CREATED", "created_on"}};

// The options of the origin's connection cap, shared by create and update.
void add_origin_protection(CLI::App* command, BodyOptions& body) {
    body.add_integer(command, "--max-origin-connections", "max_origin_connections",
                     "Connections to the origin at once, over this node's edge threads; requests beyond wait in wr "
                     "(0-1000000; 0: no limit)");
    body.add_integer(command, "--origin-queue-timeout", "origin_queue_timeout_seconds",
                     "Seconds a request waits for an origin connection before it gets a 503 page (1-120; default 10)");
}

// In a table a cap of 0 reads "unlimited", not as no connections at all; -o json keeps the API's 0.
nlohmann::json for_table(const Context& context, nlohmann::json zones) {
    if (context.json_output()) return zones;
    for (nlohmann::json& zone : zones)
        if (zone.is_object() && zone.value("max_origin_connections", int64_t{-1}) == 0) zone["max_origin_connections"] = "unlimited";
    return zones;
}

} // namespace

void add_zone_commands(CLI::App& root, Context& context) {
    CLI::App* zones = root.add_subcommand("zones", "Manage zones: a domain and the origin it proxies to");
    zones->require_subcommand(1);

    {
        auto name = std::make_shared<std::string>();
        auto origin = std::make_shared<std::string>();
        auto hosts = std::make_shared<std::vector<std::string>>();
        auto protection = std::make_shared<BodyOptions>();
        CLI::App* create = zones->add_subcommand("create", "Create a zone");
        create->add_option("name", *name, "Domain, e.g. example.com")->required();
        create->add_option("--origin", *origin, "Upstream base URL, e.g. http://127.0.0.1:3000")->required();
        create->add_option("--host", *hosts, k_host_help);
        add_origin_protection(create, *protection);
        create->footer("Example:\n  wr zones create example.com --origin http://127.0.0.1:3000 --host www.example.com\n"
                       "  wr zones create example.com --origin http://127.0.0.1:3000 --max-origin-connections 64");
        create->callback([&context, name, origin, hosts, protection] {
            nlohmann::json body = protection->body();
            body["name"] = *name;
            body["origin"] = *origin;
            if (!hosts->empty()) body["hosts"] = *hosts;
            print_object(context, naming_flags({{"origin", "--origin"}, {"hosts", "--host"}},
                                               [&] { return context.client().post("/client/v4/zones", body); }));
        });
    }
    {
        CLI::App* list = zones->add_subcommand("list", "List zones");
        list->footer("Example:\n  wr zones list -o json");
        list->callback([&context] { print_list(context, for_table(context, context.client().get_all("/client/v4/zones")), k_zone_columns); });
    }
    {
        auto zone = std::make_shared<std::string>();
        CLI::App* get = zones->add_subcommand("get", "Show a zone");
        get->add_option("zone", *zone, "Zone id or name")->required();
        get->footer("Example:\n  wr zones get example.com");
        get->callback([&context, zone] { print_object(context, context.client().get("/client/v4/zones/" + util::percent_encode(*zone))); });
    }
    {
        auto zone = std::make_shared<std::string>();
        auto body = std::make_shared<BodyOptions>();
        auto hosts = std::make_shared<std::vector<std::string>>();
        auto no_hosts = std::make_shared<bool>(false);
        CLI::App* update = zones->add_subcommand("update", "Change a zone's origin, hosts, origin connection cap (or name)");
        update->add_option("zone", *zone, "Zone id or name")->required();
        body->add_string(update, "--origin", "origin", "Upstream base URL");
        body->add_string(update, "--name", "name", "New domain");
        add_origin_protection(update, *body);
        CLI::Option* host_option = update->add_option("--host", *hosts, std::string(k_host_help) + "; replaces the zone's list");
        update->add_flag("--no-hosts", *no_hosts, "Clear the zone's list of hosts")->excludes(host_option);
        update->footer("Example:\n  wr zones update example.com --origin http://10.0.0.5:8000\n"
                       "  wr zones update example.com --host www.example.com --host '*.cdn.example.com'\n"
                       "  wr zones update example.com --max-origin-connections 64 --origin-queue-timeout 15");
        update->callback([&context, zone, body, hosts, no_hosts] {
            const ApiClient client = context.client();
            nlohmann::json patch = body->body();
            if (!hosts->empty()) patch["hosts"] = *hosts;
            if (*no_hosts) patch["hosts"] = nlohmann::json::array();
            std::map<std::string, std::string> flags = body->flags();
            flags["hosts"] = "--host";
            const std::string path = zone_path(client, *zone);
            print_object(context, naming_flags(flags, [&] { return client.patch(path, patch); }));
        });
    }
    {
        auto zone = std::make_shared<std::string>();
        CLI::App* remove = zones->add_subcommand("delete", "Delete a zone (it must have no waiting rooms)");
        remove->add_option("zone", *zone, "Zone id or name")->required();
        remove->footer("Example:\n  wr zones delete example.com");
        remove->callback([&context, zone] {
            const ApiClient client = context.client();
            const nlohmann::json result = client.del(zone_path(client, *zone));
            print_done(context, "deleted zone " + *zone, result);
        });
    }
}

} // namespace wr::cli
