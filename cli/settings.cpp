// `wr settings …`: a zone's waiting-room settings.
#include "body_options.h"
#include "commands.h"
#include "output.h"
#include "resolve.h"

namespace wr::cli {

void add_settings_commands(CLI::App& root, Context& context) {
    CLI::App* settings = root.add_subcommand("settings", "Show or change a zone's waiting-room settings");
    settings->require_subcommand(1);
    {
        auto zone = std::make_shared<std::string>();
        CLI::App* get = settings->add_subcommand("get", "Show a zone's settings");
        get->add_option("zone", *zone, "Zone id or name")->required();
        get->footer("Example:\n  wr settings get example.com");
        get->callback([&context, zone] {
            const ApiClient client = context.client();
            print_object(context, client.get(zone_path(client, *zone) + "/waiting_rooms/settings"));
        });
    }
    {
        auto zone = std::make_shared<std::string>();
        auto body = std::make_shared<BodyOptions>();
        CLI::App* set = settings->add_subcommand("set", "Change a zone's settings (only the options given)");
        set->add_option("zone", *zone, "Zone id or name")->required();
        body->add_boolean(set, "--search-engine-crawler-bypass", "search_engine_crawler_bypass",
                          "Let verified search engine crawlers skip the queue");
        set->footer("Example:\n  wr settings set example.com --search-engine-crawler-bypass");
        set->callback([&context, zone, body] {
            const ApiClient client = context.client();
            const std::string path = zone_path(client, *zone) + "/waiting_rooms/settings";
            print_object(context, naming_flags(body->flags(), [&] { return client.patch(path, body->body()); }));
        });
    }
}

} // namespace wr::cli
