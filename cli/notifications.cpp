// `wr notifications …`: webhooks for rooms' and nodes' changes, their test sends and deliveries.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "body_options.h"
#include "commands.h"
#include "output.h"
#include "util/escape.h"

namespace wr::cli {
namespace {

const char* const k_base = "/client/v4/notifications/destinations";

const char* const k_kind_help =
    "A kind of event to send (repeatable; default every kind): room.queueing_started, room.queueing_stopped, "
    "room.wait_above_threshold, room.wait_below_threshold, event.started, event.ended, origin_guard.throttling, "
    "origin_guard.recovered, node.state_lost, node.state_restored, node.stopped_reporting, node.reporting_again";

const std::vector<Column> k_destination_columns = {{"NAME", "name"}, {"URL", "url"}, {"KINDS", "kinds"},
                                                   {"WAIT THRESHOLD", "wait_threshold_minutes"}, {"ENABLED", "enabled"}};
const std::vector<Column> k_delivery_columns = {{"CREATED", "created_on"},       {"KIND", "kind"},
                                                {"STATUS", "status"},            {"ATTEMPTS", "attempts"},
                                                {"LAST ATTEMPT", "last_attempt_on"}, {"ANSWER", "last_status"},
                                                {"NEXT RETRY", "next_attempt_on"}, {"ERROR", "last_error"}};

std::string path_of(const std::string& destination) { return std::string(k_base) + "/" + util::percent_encode(destination); }

// The secret from --secret or WR_NOTIFICATION_SECRET (arguments show in ps; the environment does not).
std::string secret_option(const std::string& flag) {
    if (!flag.empty()) return flag;
    const char* value = std::getenv("WR_NOTIFICATION_SECRET");
    return value ? value : "";
}

} // namespace

void add_notification_commands(CLI::App& root, Context& context) {
    CLI::App* notifications = root.add_subcommand("notifications", "Send rooms' and nodes' changes to webhooks");
    notifications->require_subcommand(1);
    {
        auto body = std::make_shared<BodyOptions>();
        auto kinds = std::make_shared<std::vector<std::string>>();
        auto secret = std::make_shared<std::string>();
        auto disabled = std::make_shared<bool>(false);
        CLI::App* create = notifications->add_subcommand("create", "Add a webhook destination");
        body->add_string(create, "--name", "name", "What the destination is (letters, digits, '_', '-')");
        body->add_string(create, "--url", "url", "Where to POST: http(s)://host[:port][/path]");
        body->add_integer(create, "--wait-threshold", "wait_threshold_minutes",
                          "Minutes of estimated wait that room.wait_above/below_threshold announce crossing (default 30)");
        create->add_option("--secret", *secret,
                           "The signing secret, 16 characters or more (default: WR_NOTIFICATION_SECRET, else wr makes one and "
                           "prints it once)");
        create->add_option("--kind", *kinds, k_kind_help);
        create->add_flag("--disabled", *disabled, "Create it switched off");
        create->footer("Example:\n  WR_NOTIFICATION_SECRET=… wr notifications create --name ops --url https://hooks.example.com/wr \\\n"
                       "      --kind room.queueing_started --kind room.queueing_stopped\n\n"
                       "Each delivery is signed: see docs/observability.md for the headers and how to check them.");
        create->callback([&context, body, kinds, secret, disabled] {
            nlohmann::json request = body->body();
            if (const std::string value = secret_option(*secret); !value.empty()) request["secret"] = value;
            if (!kinds->empty()) request["kinds"] = *kinds;
            if (*disabled) request["enabled"] = false;
            const nlohmann::json created = context.client().post(k_base, request);
            print_object(context, created);
            if (!context.json_output() && created.contains("secret"))
                std::cerr << "the secret above is shown only once: give it to the receiver to check signatures\n";
        });
    }
    {
        CLI::App* list = notifications->add_subcommand("list", "List webhook destinations (never their secrets)");
        list->footer("Example:\n  wr notifications list");
        list->callback([&context] { print_list(context, context.client().get_all(k_base), k_destination_columns); });
    }
    {
        auto destination = std::make_shared<std::string>();
        auto body = std::make_shared<BodyOptions>();
        auto kinds = std::make_shared<std::vector<std::string>>();
        auto secret = std::make_shared<std::string>();
        auto all_kinds = std::make_shared<bool>(false);
        auto secret_from_env = std::make_shared<bool>(false);
        CLI::App* update = notifications->add_subcommand("update", "Change a webhook destination (only the options given)");
        update->add_option("destination", *destination, "Destination name or id")->required();
        body->add_string(update, "--url", "url", "Where to POST");
        body->add_string(update, "--name", "name", "A new name");
        body->add_integer(update, "--wait-threshold", "wait_threshold_minutes", "Minutes of estimated wait for the wait kinds");
        body->add_boolean(update, "--enabled", "enabled", "Switch it on (--no-enabled: off)");
        CLI::Option* secret_flag = update->add_option("--secret", *secret, "A new signing secret (arguments show in ps: prefer --secret-from-env)");
        update->add_flag("--secret-from-env", *secret_from_env, "Take the new signing secret from WR_NOTIFICATION_SECRET")->excludes(secret_flag);
        CLI::Option* kind_option = update->add_option("--kind", *kinds, std::string(k_kind_help) + "; replaces the list");
        update->add_flag("--all-kinds", *all_kinds, "Send every kind")->excludes(kind_option);
        update->footer("Example:\n  wr notifications update ops --no-enabled\n  wr notifications update ops --kind event.started --kind event.ended");
        update->callback([&context, destination, body, kinds, secret, all_kinds, secret_from_env] {
            nlohmann::json request = body->body();
            if (!secret->empty()) request["secret"] = *secret;
            if (*secret_from_env) {
                const std::string value = secret_option("");
                if (value.empty()) throw CliError("--secret-from-env: WR_NOTIFICATION_SECRET is not set");
                request["secret"] = value;
            }
            if (!kinds->empty()) request["kinds"] = *kinds;
            if (*all_kinds) request["kinds"] = nlohmann::json::array();
            if (request.empty()) throw CliError("nothing to change: give at least one option");
            print_object(context, context.client().patch(path_of(*destination), request));
        });
    }
    {
        auto destination = std::make_shared<std::string>();
        CLI::App* remove = notifications->add_subcommand("delete", "Remove a webhook destination and its pending deliveries");
        remove->add_option("destination", *destination, "Destination name or id")->required();
        remove->footer("Example:\n  wr notifications delete ops");
        remove->callback([&context, destination] {
            print_done(context, "deleted notification destination " + *destination, context.client().del(path_of(*destination)));
        });
    }
    {
        auto destination = std::make_shared<std::string>();
        auto wait = std::make_shared<int>(15);
        CLI::App* test = notifications->add_subcommand("test", "Send a test notification now and say how it went");
        test->add_option("destination", *destination, "Destination name or id")->required();
        test->add_option("--wait", *wait, "Seconds to wait for the first attempt's outcome")->check(CLI::Range(0, 300))->capture_default_str();
        test->footer("Example:\n  wr notifications test ops");
        test->callback([&context, destination, wait] {
            const ApiClient client = context.client();
            nlohmann::json delivery = client.post(path_of(*destination) + "/test", nlohmann::json::object());
            const std::string id = delivery.value("id", "");
            // The sender posts it in the background; its delivery log tells the outcome.
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{*wait};
            while (delivery.value("attempts", 0) == 0 && std::chrono::steady_clock::now() < deadline) {
                std::this_thread::sleep_for(std::chrono::milliseconds{200});
                for (const auto& item : client.get(path_of(*destination) + "/deliveries?per_page=100"))
                    if (item.value("id", "") == id) delivery = item;
            }
            if (context.json_output()) {
                std::cout << delivery.dump(2) << '\n';
                return;
            }
            const std::string status = delivery.value("status", "");
            if (status == "delivered") {
                std::cout << "delivered: the receiver answered " << cell_text(delivery["last_status"]) << '\n';
            } else if (delivery.value("attempts", 0) == 0) {
                throw CliError("not sent yet after " + std::to_string(*wait) + " s; see wr notifications deliveries " + *destination);
            } else {
                throw CliError("not delivered: " + delivery.value("last_error", std::string("no answer")) +
                               (delivery["next_attempt_on"].is_string() ? "; next retry " + delivery["next_attempt_on"].get<std::string>() : ""));
            }
        });
    }
    {
        auto destination = std::make_shared<std::string>();
        auto limit = std::make_shared<int>(20);
        CLI::App* deliveries = notifications->add_subcommand("deliveries", "Show a destination's latest deliveries and their attempts");
        deliveries->add_option("destination", *destination, "Destination name or id")->required();
        deliveries->add_option("--limit", *limit, "At most this many, newest first")->check(CLI::Range(5, 1000))->capture_default_str();
        deliveries->footer("Example:\n  wr notifications deliveries ops");
        deliveries->callback([&context, destination, limit] {
            print_list(context, context.client().get(path_of(*destination) + "/deliveries?per_page=" + std::to_string(*limit)), k_delivery_columns);
        });
    }
}

} // namespace wr::cli
