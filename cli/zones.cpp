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

const std::vector<Column> k_zone_columns = {{"ID", "id"}, {"NAME", "name"}, {"ORIGIN", "origin"}, {"CREATED", "created_on"}};

} // namespace

void add_zone_commands(CLI::App& root, Context& context) {
    CLI::App* zones = root.add_subcommand("zones", "Manage zones: a domain and the origin it proxies to");
    zones->require_subcommand(1);

    {
        auto name = std::make_shared<std::string>();
        auto origin = std::make_shared<std::string>();
        auto hosts = std::make_shared<std::vector<std::string>>();
        CLI::App* create = zones->add_subcommand("create", "Create a zone");
        create->add_option("name", *name, "Domain, e.g. example.com")->required();
        create->add_option("--origin", *origin, "Upstream base URL, e.g. http://127.0.0.1:3000")->required();
        create->add_option("--host", *hosts, k_host_help);
        create->footer("Example:\n  wr zones create example.com --origin http://127.0.0.1:3000 --host www.example.com");
        create->callback([&context, name, origin, hosts] {
            nlohmann::json body = {{"name", *name}, {"origin", *origin}};
            if (!hosts->empty()) body["hosts"] = *hosts;
            print_object(context, naming_flags({{"origin", "--origin"}, {"hosts", "--host"}},
                                               [&] { return context.client().post("/client/v4/zones", body); }));
        });
    }
    {
        CLI::App* list = zones->add_subcommand("list", "List zones");
        list->footer("Example:\n  wr zones list -o json");
        list->callback([&context] { print_list(context, context.client().get_all("/client/v4/zones"), k_zone_columns); });
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
        CLI::App* update = zones->add_subcommand("update", "Change a zone's origin, hosts (or name)");
        update->add_option("zone", *zone, "Zone id or name")->required();
        body->add_string(update, "--origin", "origin", "Upstream base URL");
        body->add_string(update, "--name", "name", "New domain");
        CLI::Option* host_option = update->add_option("--host", *hosts, std::string(k_host_help) + "; replaces the zone's list");
        update->add_flag("--no-hosts", *no_hosts, "Clear the zone's list of hosts")->excludes(host_option);
        update->footer("Example:\n  wr zones update example.com --origin http://10.0.0.5:8000\n"
                       "  wr zones update example.com --host www.example.com --host '*.cdn.example.com'");
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
