// `wr simulate`: plays a crowd through the real admission code on virtual time, and reports how
// fair, how well within the limits and how well estimated it was.
#include <charconv>
#include <iostream>
#include <tuple>
#include <unistd.h>

#include "commands.h"
#include "simulate/report_svg.h"
#include "simulate/simulation.h"
#include "util/files.h"

namespace wr::cli {
namespace {

struct SimulateCommand {
    simulate::Scenario scenario;
    std::string scenario_file;
    std::string method = "fifo";
    std::string browse = "1m";
    std::string refresh = "20s";
    std::string out;
    std::string svg;
    bool users_in_report = true;
    std::string sync_interval = "250ms";
    std::string sync_latency = "2ms";
    std::vector<double> node_shares;
    std::string origin_guard = "off";
    std::vector<std::string> origin_changes;
};

void progress_bar(double fraction) {
    constexpr int k_width = 40;
    const int filled = static_cast<int>(fraction * k_width);
    std::cerr << "\r[" << std::string(static_cast<size_t>(filled), '#') << std::string(static_cast<size_t>(k_width - filled), ' ') << "] "
              << static_cast<int>(fraction * 100) << "%" << std::flush;
}

} // namespace

void add_simulate_command(CLI::App& root, Context&) {
    auto command = std::make_shared<SimulateCommand>();
    simulate::Scenario& s = command->scenario;
    CLI::App* sim = root.add_subcommand("simulate", "Play a crowd through the admission algorithm on virtual time and report");
    sim->add_option("--scenario", command->scenario_file, "A JSON scenario (the same names, plus events and method_changes)")
        ->check(CLI::ExistingFile);
    sim->add_option("--users", s.users, "How many users arrive")->capture_default_str();
    sim->add_option("--arrival", s.arrival, "uniform:30m, burst, poisson:RATE (per minute), launch:RAMP,PEAK,TAIL (launch:5m,10m,15m), csv:FILE (offsets in seconds) or reference:DURATION (docs/simulation.md)")
        ->capture_default_str();
    sim->add_option("--browse", command->browse, "How long an admitted user keeps browsing (then leaves)")->capture_default_str();
    sim->add_option("--refresh", command->refresh, "How often a browsing user requests a page")->capture_default_str();
    sim->add_option("--abandon", s.abandon, "Chance per minute of waiting that a user gives up (0..1)")->capture_default_str();
    sim->add_option("--method", command->method, "Queueing method")->check(CLI::IsMember({"fifo", "random", "passthrough", "reject"}))->capture_default_str();
    sim->add_option("--total-active-users", s.total_active_users, "The room's total_active_users")->capture_default_str();
    sim->add_option("--new-users-per-minute", s.new_users_per_minute, "The room's new_users_per_minute")->capture_default_str();
    sim->add_option("--session-duration", s.session_duration, "Minutes a session lasts after the last request")->capture_default_str();
    sim->add_option("--seed", s.seed, "Random seed (same seed, same report)")->capture_default_str();
    sim->add_option("--out", command->out, "Write the JSON report here (default: the summary on stdout)");
    sim->add_option("--svg", command->svg, "Draw the wait heatmap and the users chart into this SVG file");
    sim->add_flag("!--no-users", command->users_in_report, "Leave the per-user list out of the JSON report");
    sim->add_option("--nodes", s.nodes, "Edge nodes sharing the room (the reconcile code of --state redis, on virtual time)")
        ->group("Several nodes")
        ->capture_default_str();
    sim->add_option("--sync-interval", command->sync_interval, "How often each node reconciles (as --state-sync-interval)")
        ->group("Several nodes")
        ->capture_default_str();
    sim->add_option("--sync-latency", command->sync_latency, "One round trip from a node to the shared store")
        ->group("Several nodes")
        ->capture_default_str();
    sim->add_option("--node-shares", command->node_shares, "Each node's share of the requests, such as 90,5,5 (default: even)")
        ->group("Several nodes")
        ->delimiter(',');
    sim->add_option("--origin-workers", s.origin.workers,
                    "Model the origin: this many workers behind one queue (0: no origin; each admitted user's requests go to it)")
        ->group("Origin")
        ->capture_default_str();
    sim->add_option("--origin-service-ms", s.origin.service_ms, "Mean time a worker takes per request (each uniform in ½..1½ of it)")
        ->group("Origin")
        ->capture_default_str();
    sim->add_option("--origin-timeout-ms", s.origin.timeout_ms, "How long the proxy waits for the first byte; past it the request is an error")
        ->group("Origin")
        ->capture_default_str();
    sim->add_option("--origin-change", command->origin_changes, "The origin's workers change during the run, such as 20m:8 (repeatable)")
        ->group("Origin");
    sim->add_option("--origin-guard", command->origin_guard, "The room's origin_guard: lower admission while the origin is over target")
        ->check(CLI::IsMember({"on", "off"}))
        ->group("Origin")
        ->capture_default_str();
    sim->add_option("--origin-guard-target-ms", s.origin_guard.target_ttfb_ms, "The guard's target for the origin's p95 time to first byte")
        ->group("Origin")
        ->capture_default_str();
    sim->add_option("--origin-guard-max-error-rate", s.origin_guard.max_error_rate, "The guard's maximum share of errors (timeouts)")
        ->group("Origin")
        ->capture_default_str();
    sim->add_option("--origin-guard-min-new-users-per-minute", s.origin_guard.min_new_users_per_minute,
                    "The guard's floor (0: a tenth of --new-users-per-minute)")
        ->group("Origin")
        ->capture_default_str();
    sim->footer("Examples:\n"
                "  wr simulate --users 10000 --arrival uniform:30m --browse 1m --method random --out random.json --svg random.svg\n"
                "  wr simulate --scenario launch.json --seed 7\n"
                "  wr simulate --users 10000 --arrival reference:30m --nodes 3 --sync-interval 250ms --node-shares 90,5,5\n"
                "  wr simulate --users 12000 --arrival launch:5m,10m,10m --browse 4m --refresh 5s --total-active-users 6000 \\\n"
                "      --new-users-per-minute 1500 --origin-workers 32 --origin-service-ms 100 --origin-guard on --origin-guard-target-ms 500\n\n"
                "With --origin-workers, each admitted user's requests go to a modelled origin, and the summary's \"origin\" holds its\n"
                "p95 time to first byte, timeouts and throughput; with --origin-guard on, the guard sets the effective limits from\n"
                "them every 5 s (docs/origin-protection.md).\n\n"
                "With --nodes, the summary of the run on that many nodes is followed by \"against_single_node\":\n"
                "its overshoot, early queueing and order beside the same scenario and seed on one node.\n\n"
                "A scenario file: {\"users\": 5000, \"arrival\": \"burst\", \"total_active_users\": 500, \"new_users_per_minute\": 200,\n"
                "  \"events\": [{\"prequeue_start\": \"0m\", \"start\": \"10m\", \"end\": \"60m\", \"shuffle_at_event_start\": true}],\n"
                "  \"method_changes\": [{\"at\": \"20m\", \"method\": \"random\"}]}");
    sim->callback([command, sim] {
        simulate::Scenario& scenario = command->scenario;
        // Flags given on the command line win over the scenario file.
        simulate::Scenario from_file = scenario;
        if (!command->scenario_file.empty()) {
            const auto text = util::read_text_file(command->scenario_file);
            const nlohmann::json document = nlohmann::json::parse(text.value_or(""), nullptr, false);
            if (document.is_discarded()) throw CliError(command->scenario_file + " is not valid JSON");
            model::FieldErrors errors = simulate::read_scenario(document, from_file);
            if (!errors.empty()) throw CliError(command->scenario_file + ": " + errors.front().text());
        }
        const auto given = [&](const char* flag) { return sim->get_option(flag)->count() > 0; };
        simulate::Scenario chosen = command->scenario_file.empty() ? scenario : from_file;
        if (!command->scenario_file.empty()) {
            if (given("--users")) chosen.users = scenario.users;
            if (given("--arrival")) chosen.arrival = scenario.arrival;
            if (given("--abandon")) chosen.abandon = scenario.abandon;
            if (given("--total-active-users")) chosen.total_active_users = scenario.total_active_users;
            if (given("--new-users-per-minute")) chosen.new_users_per_minute = scenario.new_users_per_minute;
            if (given("--session-duration")) chosen.session_duration = scenario.session_duration;
            if (given("--seed")) chosen.seed = scenario.seed;
            if (given("--nodes")) chosen.nodes = scenario.nodes;
            if (given("--origin-workers")) chosen.origin.workers = scenario.origin.workers;
            if (given("--origin-service-ms")) chosen.origin.service_ms = scenario.origin.service_ms;
            if (given("--origin-timeout-ms")) chosen.origin.timeout_ms = scenario.origin.timeout_ms;
            if (given("--origin-guard-target-ms")) chosen.origin_guard.target_ttfb_ms = scenario.origin_guard.target_ttfb_ms;
            if (given("--origin-guard-max-error-rate")) chosen.origin_guard.max_error_rate = scenario.origin_guard.max_error_rate;
            if (given("--origin-guard-min-new-users-per-minute"))
                chosen.origin_guard.min_new_users_per_minute = scenario.origin_guard.min_new_users_per_minute;
        }
        if (command->scenario_file.empty() || given("--origin-guard")) chosen.origin_guard.enabled = command->origin_guard == "on";
        if (command->scenario_file.empty() || given("--origin-change")) {
            chosen.origin.changes.clear();
            for (const std::string& text : command->origin_changes) {
                const size_t colon = text.find(':');
                const auto at = simulate::parse_duration_seconds(text.substr(0, colon));
                int workers = 0;
                const std::string count = colon == std::string::npos ? "" : text.substr(colon + 1);
                const auto parsed = std::from_chars(count.data(), count.data() + count.size(), workers);
                if (!at || count.empty() || parsed.ec != std::errc{} || parsed.ptr != count.data() + count.size())
                    throw CliError("--origin-change " + text + ": expected a time and a number of workers, such as 20m:8");
                chosen.origin.changes.push_back({*at / 60, workers});
            }
        }
        if (command->scenario_file.empty() || given("--node-shares")) chosen.node_shares = command->node_shares;
        for (const auto& [flag, text, seconds] : {std::tuple{"--sync-interval", command->sync_interval, &chosen.sync_interval_seconds},
                                                  std::tuple{"--sync-latency", command->sync_latency, &chosen.sync_latency_seconds}}) {
            if (!command->scenario_file.empty() && !given(flag)) continue;
            const auto parsed = simulate::parse_duration_seconds(text);
            if (!parsed) throw CliError(std::string(flag) + " " + text + ": expected a duration such as 250ms or 1s");
            *seconds = *parsed;
        }
        if (command->scenario_file.empty() || given("--method")) chosen.method = *model::parse_enum<model::QueueingMethod>(command->method);
        if (command->scenario_file.empty() || given("--browse")) {
            const auto seconds = simulate::parse_duration_seconds(command->browse);
            if (!seconds) throw CliError("--browse " + command->browse + ": expected a duration such as 1m or 90s");
            chosen.browse_minutes = *seconds / 60;
        }
        if (command->scenario_file.empty() || given("--refresh")) {
            const auto seconds = simulate::parse_duration_seconds(command->refresh);
            if (!seconds) throw CliError("--refresh " + command->refresh + ": expected a duration such as 20s");
            chosen.refresh_seconds = *seconds;
        }
        if (const auto errors = simulate::validate_scenario(chosen); !errors.empty()) throw CliError(errors.front().text());

        const bool terminal = ::isatty(STDERR_FILENO);
        const simulate::Report report = simulate::run(chosen, terminal ? std::function<void(double)>(progress_bar) : nullptr);
        if (terminal) std::cerr << '\n';
        if (!command->out.empty()) util::write_text_file(command->out, simulate::report_to_json(report, command->users_in_report).dump(2) + "\n");
        if (!command->svg.empty()) {
            const std::string title = std::to_string(chosen.users) + " users, " + chosen.arrival + ", " +
                                      std::string(model::to_string(chosen.method)) + ", limits " +
                                      std::to_string(chosen.total_active_users) + " active / " +
                                      std::to_string(chosen.new_users_per_minute) + " per minute";
            util::write_text_file(command->svg, simulate::report_svg(report, title));
        }
        nlohmann::json summary = simulate::summary_to_json(report.summary);
        if (chosen.nodes > 1) {
            // The same crowd on one node, for comparison.
            simulate::Scenario alone = chosen;
            alone.nodes = 1;
            alone.node_shares.clear();
            const simulate::Report single = simulate::run(alone);
            summary["against_single_node"] = simulate::nodes_comparison(chosen, report.summary, single.summary);
        }
        std::cout << summary.dump(2) << '\n';
    });
}

} // namespace wr::cli
