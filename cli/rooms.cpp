// `wr rooms …`: waiting rooms, addressed by id or by name.
#include <iostream>

#include "body_options.h"
#include "commands.h"
#include "origin_guard_text.h"
#include "output.h"
#include "resolve.h"

namespace wr::cli {
namespace {

const std::vector<Column> k_room_columns = {
    {"ID", "id"},
    {"NAME", "name"},
    {"ROUTE", "host"},
    {"PATH", "path"},
    {"ACTIVE", "total_active_users"},
    {"NEW/MIN", "new_users_per_minute"},
    {"METHOD", "queueing_method"},
    {"SUSPENDED", "suspended"},
    {"GUARD", "origin_guard.enabled"},
};

// The options shared by create and update; each maps to the API field of the same meaning.
void add_room_fields(CLI::App* command, BodyOptions& body) {
    body.add_string(command, "--name", "name", "Name (letters, digits, _ and -)");
    body.add_string(command, "--host", "host", "Host the room guards, e.g. shop.example.com");
    body.add_string(command, "--path", "path", "Path prefix the room guards (default /)");
    body.add_integer(command, "--total-active-users", "total_active_users", "Users allowed on the site at once (>= 200)");
    body.add_integer(command, "--new-users-per-minute", "new_users_per_minute", "Users let in per minute (>= 200)");
    // The API reads 0 as "the default" (old SDKs send zero values); typed here, it is a mistake.
    body.add_integer(command, "--session-duration", "session_duration", "Minutes a user stays admitted after their last request (1-30)")
        ->check(CLI::Range(1, 30));
    body.add_choice(command, "--queueing-method", "queueing_method", {"fifo", "random", "passthrough", "reject"}, "Queueing method");
    body.add_integer(command, "--queueing-status-code", "queueing_status_code", "HTTP status of the queue page (200, 202, 429)");
    body.add_string(command, "--description", "description", "Description");
    body.add_boolean(command, "--queue-all", "queue_all", "Queue everyone");
    body.add_boolean(command, "--disable-session-renewal", "disable_session_renewal", "Sessions end session-duration after admission");
    body.add_boolean(command, "--json-response", "json_response_enabled", "Answer Accept: application/json with JSON");
    body.add_boolean(command, "--suspended", "suspended", "Let everyone through");
    body.add_string(command, "--cookie-suffix", "cookie_suffix", "Cookie name suffix (__cfwaitingroom_<suffix>)");
    body.add_choice(command, "--language", "default_template_language",
                    {"en-US", "es-ES", "de-DE", "fr-FR", "it-IT", "ja-JP", "ko-KR", "pt-BR", "zh-CN", "zh-TW",
                     "nl-NL", "pl-PL", "id-ID", "tr-TR", "ar-EG", "ru-RU", "fa-IR", "bg-BG", "hr-HR", "cs-CZ",
                     "da-DK", "fi-FI", "lt-LT", "lv-LV", "ms-MY", "nb-NO", "ro-RO", "el-GR", "he-IL", "hi-IN",
                     "hu-HU", "sr-BA", "sk-SK", "sl-SI", "sv-SE", "tl-PH", "th-TH", "uk-UA", "vi-VN"},
                    "Language of the default queue page");
    body.add_file(command, "--custom-page", "custom_page_html", "File with a Mustache queue page");
    body.add_choice(command, "--turnstile-mode", "turnstile_mode", {"off", "invisible", "visible_non_interactive", "visible_managed"},
                    "Turnstile widget on the queue page");
    body.add_choice(command, "--turnstile-action", "turnstile_action", {"log", "infinite_queue"}, "What a failed challenge does");
    body.add_integer(command, "--join-limit-per-ip-per-minute", "join_limit_per_ip_per_minute",
                     "New queue joins one client address may make per minute; more get 429 (0: no limit)");
}

struct RoomOptions {
    BodyOptions body;
    std::string zone;
    std::vector<std::string> routes;
    std::string samesite;
    std::string secure;
    CLI::Option* routes_option = nullptr;
    CLI::Option* revoke_option = nullptr;
    bool revoke = false;
    // origin_guard: only the parts given, so an update changes just those (the API merges).
    std::string guard;
    CLI::Option* guard_target_option = nullptr;
    int64_t guard_target_ms = 0;
    CLI::Option* guard_error_rate_option = nullptr;
    double guard_max_error_rate = 0;
    CLI::Option* guard_floor_option = nullptr;
    int64_t guard_min_new_users = 0;

    // The body with the options that are not plain fields.
    nlohmann::json json() const {
        nlohmann::json out = body.body();
        if (routes_option && routes_option->count() > 0) {
            out["additional_routes"] = nlohmann::json::array();
            for (const std::string& route : routes) {
                const size_t slash = route.find('/');
                out["additional_routes"].push_back(
                    {{"host", route.substr(0, slash)}, {"path", slash == std::string::npos ? "/" : route.substr(slash)}});
            }
        }
        if (!samesite.empty() || !secure.empty()) {
            nlohmann::json attributes = nlohmann::json::object();
            if (!samesite.empty()) attributes["samesite"] = samesite;
            if (!secure.empty()) attributes["secure"] = secure;
            out["cookie_attributes"] = attributes;
        }
        if (revoke_option && revoke_option->count() > 0)
            out["enabled_origin_commands"] = revoke ? nlohmann::json::array({"revoke"}) : nlohmann::json::array();
        nlohmann::json origin_guard = nlohmann::json::object();
        if (!guard.empty()) origin_guard["enabled"] = guard == "on";
        if (guard_target_option && guard_target_option->count() > 0) origin_guard["target_ttfb_ms"] = guard_target_ms;
        if (guard_error_rate_option && guard_error_rate_option->count() > 0) origin_guard["max_error_rate"] = guard_max_error_rate;
        if (guard_floor_option && guard_floor_option->count() > 0) origin_guard["min_new_users_per_minute"] = guard_min_new_users;
        if (!origin_guard.empty()) out["origin_guard"] = std::move(origin_guard);
        return out;
    }

    // The API fields these options set, with their flags.
    std::map<std::string, std::string> flags() const {
        std::map<std::string, std::string> flags = body.flags();
        flags["additional_routes"] = "--route";
        flags["cookie_attributes.samesite"] = "--samesite";
        flags["cookie_attributes.secure"] = "--secure";
        flags["enabled_origin_commands"] = "--origin-revoke";
        return flags;
    }
};

void add_room_extras(CLI::App* command, RoomOptions& options) {
    options.routes_option = command->add_option("--route", options.routes, "Additional route host/path (repeat; needs --cookie-suffix)");
    command->add_option("--samesite", options.samesite, "Cookie SameSite")->check(CLI::IsMember({"auto", "lax", "none", "strict"}));
    command->add_option("--secure", options.secure, "Cookie Secure")->check(CLI::IsMember({"auto", "always", "never"}));
    options.revoke_option = command->add_flag("--origin-revoke,!--no-origin-revoke", options.revoke,
                                              "Honour Cf-Waiting-Room-Command: revoke from the origin");
    // The ranges are the API's; it checks them (and names the field), so they are not repeated here.
    command->add_option("--origin-guard", options.guard, "Admit below the limits while the origin is slow or failing (on, off)")
        ->check(CLI::IsMember({"on", "off"}));
    options.guard_target_option = command->add_option("--origin-guard-target-ms", options.guard_target_ms,
                                                      "The origin's p95 time to first byte to keep under, in ms (50-60000; default 500)");
    options.guard_error_rate_option =
        command->add_option("--origin-guard-max-error-rate", options.guard_max_error_rate,
                            "The share of failed origin requests to keep under (0-1; default 0.05, i.e. 5 %)");
    options.guard_floor_option =
        command->add_option("--origin-guard-min-new-users", options.guard_min_new_users,
                            "New users per minute the guard always lets in (default 0: a tenth of --new-users-per-minute)");
}

void add_room_action(CLI::App* rooms, Context& context, const char* name, const char* help, const char* example,
                     std::function<void(const ApiClient&, const RoomRef&)> action) {
    auto room = std::make_shared<std::string>();
    auto zone = std::make_shared<std::string>();
    CLI::App* command = rooms->add_subcommand(name, help);
    command->add_option("room", *room, "Room id or name")->required();
    command->add_option("--zone", *zone, "Zone id or name (when several zones have rooms of that name)");
    command->footer(std::string("Example:\n  ") + example);
    command->callback([&context, room, zone, action] {
        const ApiClient client = context.client();
        action(client, find_room(client, *room, *zone));
    });
}

// The limits the room's configuration sets now: its running event's, else its own.
ConfiguredLimits configured_limits(const ApiClient& client, const RoomRef& room, const nlohmann::json& status) {
    ConfiguredLimits limits{room.room.value("total_active_users", int64_t{0}), room.room.value("new_users_per_minute", int64_t{0})};
    const std::string event_id = status.value("event_id", "");
    if (!event_id.empty()) {
        const nlohmann::json event = client.get(room.path() + "/events/" + event_id + "/details");
        limits.total_active_users = event.value("total_active_users", limits.total_active_users);
        limits.new_users_per_minute = event.value("new_users_per_minute", limits.new_users_per_minute);
    }
    return limits;
}

// The status object; what the origin guard does, in words, when the status says; then the
// nodes behind its figures and what is wrong with any of them (a node whose shared state is
// unreachable, one that stopped reporting).
void print_status(const Context& context, const ApiClient& client, const RoomRef& room, const nlohmann::json& status) {
    if (context.json_output() || !status.is_object()) {
        print_object(context, status);
        return;
    }
    nlohmann::json figures = status;
    figures.erase("nodes");
    print_object(context, figures);
    const nlohmann::json guard = room.room.value("origin_guard", nlohmann::json::object());
    const std::string state = status.contains("origin_guard") && status["origin_guard"].is_object()
                                  ? status["origin_guard"].value("state", "")
                                  : "";
    const std::string headline =
        state == "throttling" || state == "recovering" ? origin_guard_headline(status, configured_limits(client, room, status), guard) : "";
    const std::string origin = origin_figures(status, guard);
    if (!headline.empty() || !origin.empty()) std::cout << '\n';
    if (!headline.empty()) std::cout << headline << '\n';
    if (!origin.empty()) std::cout << origin << '\n';
    if (!status.contains("nodes")) return;
    const nlohmann::json& nodes = status["nodes"];
    if (!nodes.is_array() || nodes.empty()) return;
    std::cout << '\n';
    print_list(context, nodes,
               {{"NODE", "name"}, {"ROLE", "role"}, {"CONDITION", "condition"}, {"STATE", "state.backend"}, {"ACTIVE", "active_users"},
                {"QUEUED", "queued_users"}, {"LAST REPORT", "last_report"}});
    for (const nlohmann::json& node : nodes)
        if (node.is_object() && node.contains("message") && node["message"].is_string() && !node["message"].get<std::string>().empty())
            std::cout << node["message"].get<std::string>() << '\n';
}

} // namespace

void add_room_commands(CLI::App& root, Context& context) {
    CLI::App* rooms = root.add_subcommand("rooms", "Manage waiting rooms");
    rooms->require_subcommand(1);

    {
        auto options = std::make_shared<RoomOptions>();
        CLI::App* create = rooms->add_subcommand("create", "Create a waiting room");
        create->add_option("--zone", options->zone, "Zone id or name")->required();
        add_room_fields(create, options->body);
        add_room_extras(create, *options);
        create->footer("Example:\n  wr rooms create --zone example.com --name shop --host shop.example.com "
                       "--total-active-users 1000 --new-users-per-minute 300");
        create->callback([&context, options] {
            const ApiClient client = context.client();
            print_object(context, naming_flags(options->flags(), [&] {
                             return client.post(zone_path(client, options->zone) + "/waiting_rooms", options->json());
                         }));
        });
    }
    {
        auto zone = std::make_shared<std::string>();
        CLI::App* list = rooms->add_subcommand("list", "List waiting rooms");
        list->add_option("--zone", *zone, "Only this zone (id or name)");
        list->footer("Example:\n  wr rooms list --zone example.com");
        list->callback([&context, zone] {
            const ApiClient client = context.client();
            nlohmann::json all = nlohmann::json::array();
            if (!zone->empty()) {
                all = client.get_all(zone_path(client, *zone) + "/waiting_rooms");
            } else {
                for (const auto& zone_object : client.get_all("/client/v4/zones"))
                    for (auto& room : client.get_all("/client/v4/zones/" + zone_object.value("id", "") + "/waiting_rooms"))
                        all.push_back(std::move(room));
            }
            print_list(context, all, k_room_columns);
        });
    }
    add_room_action(rooms, context, "get", "Show a waiting room", "wr rooms get shop",
                    [&context](const ApiClient&, const RoomRef& room) { print_object(context, room.room); });
    {
        auto room = std::make_shared<std::string>();
        auto options = std::make_shared<RoomOptions>();
        CLI::App* update = rooms->add_subcommand("update", "Change a waiting room (only the options given)");
        update->add_option("room", *room, "Room id or name")->required();
        update->add_option("--zone", options->zone, "Zone id or name (when several zones have rooms of that name)");
        add_room_fields(update, options->body);
        add_room_extras(update, *options);
        update->footer("Example:\n  wr rooms update shop --total-active-users 2000 --queueing-method random\n"
                       "  wr rooms update shop --origin-guard on --origin-guard-target-ms 800");
        update->callback([&context, room, options] {
            const ApiClient client = context.client();
            const RoomRef found = find_room(client, *room, options->zone);
            print_object(context, naming_flags(options->flags(), [&] { return client.patch(found.path(), options->json()); }));
        });
    }
    add_room_action(rooms, context, "delete", "Delete a waiting room with its events and rules", "wr rooms delete shop",
                    [&context](const ApiClient& client, const RoomRef& room) {
                        print_done(context, "deleted waiting room " + room.room.value("name", ""), client.del(room.path()));
                    });
    add_room_action(rooms, context, "suspend", "Suspend a room: everyone goes straight to the origin", "wr rooms suspend shop",
                    [&context](const ApiClient& client, const RoomRef& room) {
                        const nlohmann::json result = client.patch(room.path(), {{"suspended", true}});
                        print_done(context, "suspended waiting room " + room.room.value("name", ""), result);
                    });
    add_room_action(rooms, context, "resume", "Resume a suspended room", "wr rooms resume shop",
                    [&context](const ApiClient& client, const RoomRef& room) {
                        const nlohmann::json result = client.patch(room.path(), {{"suspended", false}});
                        print_done(context, "resumed waiting room " + room.room.value("name", ""), result);
                    });
    add_room_action(rooms, context, "status", "Show whether a room is queueing, and how many wait (on every node)",
                    "wr rooms status shop",
                    [&context](const ApiClient& client, const RoomRef& room) {
                        print_status(context, client, room, client.get(room.path() + "/status"));
                    });
}

} // namespace wr::cli
