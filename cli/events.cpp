// `wr events …`: scheduled windows in which a room runs with other settings.
#include "body_options.h"
#include "commands.h"
#include "output.h"
#include "resolve.h"

namespace wr::cli {
namespace {

const std::vector<Column> k_event_columns = {
    {"ID", "id"},           {"NAME", "name"},       {"PREQUEUE", "prequeue_start_time"}, {"START", "event_start_time"},
    {"END", "event_end_time"}, {"METHOD", "queueing_method"}, {"SUSPENDED", "suspended"},
};

void add_event_fields(CLI::App* command, BodyOptions& body) {
    body.add_string(command, "--name", "name", "Name (letters, digits, _ and -)");
    body.add_time(command, "--start", "event_start_time", "When the event starts");
    body.add_time(command, "--end", "event_end_time", "When the event ends");
    body.add_time(command, "--prequeue", "prequeue_start_time", "When the prequeue opens (>= 5 minutes before the start)");
    body.add_boolean(command, "--shuffle", "shuffle_at_event_start", "Shuffle the prequeued users at the start");
    body.add_string(command, "--description", "description", "Description");
    body.add_boolean(command, "--suspended", "suspended", "Ignore the event");
    body.add_integer(command, "--total-active-users", "total_active_users", "Override the room's limit (with --new-users-per-minute)");
    body.add_integer(command, "--new-users-per-minute", "new_users_per_minute", "Override the room's rate (with --total-active-users)");
    body.add_integer(command, "--session-duration", "session_duration", "Override the session duration (minutes, 1-30)")
        ->check(CLI::Range(1, 30));
    body.add_choice(command, "--queueing-method", "queueing_method", {"fifo", "random", "passthrough", "reject"},
                    "Override the queueing method");
    body.add_boolean(command, "--disable-session-renewal", "disable_session_renewal", "Override session renewal");
    body.add_file(command, "--custom-page", "custom_page_html", "File with the event's Mustache queue page");
    body.add_choice(command, "--turnstile-mode", "turnstile_mode", {"off", "invisible", "visible_non_interactive", "visible_managed"},
                    "Override the Turnstile mode");
    body.add_choice(command, "--turnstile-action", "turnstile_action", {"log", "infinite_queue"}, "Override the Turnstile action");
}

struct Target {
    std::string room;
    std::string zone;
    std::string event;
};

CLI::App* event_command(CLI::App* events, const char* name, const char* help, Target& target, bool with_event) {
    CLI::App* command = events->add_subcommand(name, help);
    command->add_option("room", target.room, "Room id or name")->required();
    if (with_event) command->add_option("event", target.event, "Event id or name")->required();
    command->add_option("--zone", target.zone, "Zone id or name (when several zones have rooms of that name)");
    return command;
}

} // namespace

void add_event_commands(CLI::App& root, Context& context) {
    CLI::App* events = root.add_subcommand("events", "Manage the events of a waiting room");
    events->require_subcommand(1);

    {
        auto target = std::make_shared<Target>();
        auto body = std::make_shared<BodyOptions>();
        CLI::App* create = event_command(events, "create", "Schedule an event", *target, false);
        add_event_fields(create, *body);
        create->footer("Example:\n  wr events create shop --name launch --prequeue +10m --start +30m --end +2h --shuffle");
        create->callback([&context, target, body] {
            const ApiClient client = context.client();
            const RoomRef room = find_room(client, target->room, target->zone);
            print_object(context, naming_flags(body->flags(), [&] { return client.post(room.path() + "/events", body->body()); }));
        });
    }
    {
        auto target = std::make_shared<Target>();
        CLI::App* list = event_command(events, "list", "List a room's events", *target, false);
        list->footer("Example:\n  wr events list shop");
        list->callback([&context, target] {
            const ApiClient client = context.client();
            print_list(context, client.get_all(find_room(client, target->room, target->zone).path() + "/events"), k_event_columns);
        });
    }
    {
        auto target = std::make_shared<Target>();
        CLI::App* get = event_command(events, "get", "Show an event", *target, true);
        get->footer("Example:\n  wr events get shop launch");
        get->callback([&context, target] {
            const ApiClient client = context.client();
            print_object(context, client.get(event_path(client, find_room(client, target->room, target->zone), target->event)));
        });
    }
    {
        auto target = std::make_shared<Target>();
        CLI::App* details = event_command(events, "details", "Show an event with the room's values filled in", *target, true);
        details->footer("Example:\n  wr events details shop launch");
        details->callback([&context, target] {
            const ApiClient client = context.client();
            print_object(context,
                         client.get(event_path(client, find_room(client, target->room, target->zone), target->event) + "/details"));
        });
    }
    {
        auto target = std::make_shared<Target>();
        auto body = std::make_shared<BodyOptions>();
        CLI::App* update = event_command(events, "update", "Change an event (only the options given)", *target, true);
        add_event_fields(update, *body);
        update->footer("Example:\n  wr events update shop launch --end +3h");
        update->callback([&context, target, body] {
            const ApiClient client = context.client();
            const std::string path = event_path(client, find_room(client, target->room, target->zone), target->event);
            print_object(context, naming_flags(body->flags(), [&] { return client.patch(path, body->body()); }));
        });
    }
    {
        auto target = std::make_shared<Target>();
        CLI::App* remove = event_command(events, "delete", "Delete an event", *target, true);
        remove->footer("Example:\n  wr events delete shop launch");
        remove->callback([&context, target] {
            const ApiClient client = context.client();
            const nlohmann::json result = client.del(event_path(client, find_room(client, target->room, target->zone), target->event));
            print_done(context, "deleted event " + target->event, result);
        });
    }
}

} // namespace wr::cli
