// `wr load`: keeps a room full with visitors that behave like browsers, so a person opening the
// site waits in a real line (`make demo` runs it). Each visitor keeps its room cookie, refreshes
// while it waits, browses for a random while once admitted and then leaves (its session runs out
// a session later; the random stays spread the room's turnover over time); new visitors arrive
// whenever fewer than --queue of them are waiting, so the line behind a real browser keeps
// growing while the one ahead of it drains.
#include <chrono>
#include <deque>
#include <httplib.h>
#include <iostream>
#include <optional>
#include <random>
#include <thread>

#include "commands.h"
#include "util/address.h"

namespace wr::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct LoadCommand {
    std::string edge = "127.0.0.1:8080";
    std::string host = "localhost";
    std::string path = "/";
    int queue = 200;
    int arrivals_per_second = 400;
    int refresh_seconds = 5;
    int browse_seconds = 60;
    int wait_seconds = 30;
};

struct Visitor {
    std::string cookie; // "name=value" of the room cookie
    Clock::time_point next_request;
    std::optional<Clock::time_point> leaves_at; // set once admitted
};

// What one visit tells a visitor: whether it was kept in line, and the room cookie if one was set.
struct Visit {
    bool answered = false;
    bool queued = false;
    std::string cookie;
};

Visit visit(httplib::Client& client, const LoadCommand& command, const std::string& cookie) {
    httplib::Headers headers{{"Host", command.host}, {"Accept", "application/json"}, {"User-Agent", "wr-load"}};
    if (!cookie.empty()) headers.emplace("Cookie", cookie);
    const auto response = client.Get(command.path.c_str(), headers);
    Visit result;
    if (!response) return result;
    result.answered = true;
    // The room needs json_response_enabled: the queue then answers {"cfWaitingRoom": {"inWaitingRoom": true, …}}.
    result.queued = response->body.find("\"inWaitingRoom\":true") != std::string::npos;
    for (const auto& [name, value] : response->headers) {
        if (name.size() != 10 || !std::equal(name.begin(), name.end(), "set-cookie", [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }))
            continue;
        if (value.rfind("__cfwaitingroom", 0) == 0) result.cookie = value.substr(0, value.find(';'));
    }
    return result;
}

[[noreturn]] void run_load(const LoadCommand& command) {
    const auto address = util::parse_listen_address(command.edge);
    if (!address || address->host.empty() || address->port == 0) throw CliError("--edge " + command.edge + ": expected HOST:PORT");
    httplib::Client client(address->host, address->port);
    client.set_keep_alive(true);
    client.set_connection_timeout(2);
    client.set_read_timeout(5);

    // The room reaches the edge a moment after it is created: wait until a visit carries its cookie.
    const auto give_up = Clock::now() + std::chrono::seconds{command.wait_seconds};
    for (Visit first = visit(client, command, ""); first.cookie.empty(); first = visit(client, command, "")) {
        if (Clock::now() > give_up) {
            // Nothing listening is not a routing problem: say which it is.
            if (!first.answered) throw CliError("nothing answers at the edge " + command.edge + " (is `wr serve` running there? --edge)");
            throw CliError("the edge at " + command.edge + " did not route " + command.host + command.path + " to a room within " +
                           std::to_string(command.wait_seconds) + " s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
    std::cerr << "wr load: the edge routes " << command.host << command.path << " to a room; keeping " << command.queue
              << " visitors in line" << std::endl;

    std::deque<Visitor> visitors; // in arrival order
    size_t waiting = 0;           // those of them not yet admitted
    std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<int> browse(0, command.browse_seconds * 1000);
    const auto refresh = std::chrono::seconds{command.refresh_seconds};
    for (;;) {
        const auto tick = Clock::now();
        // Those in line refresh when due, and so do the admitted until they leave.
        for (auto it = visitors.begin(); it != visitors.end();) {
            if (it->next_request > tick) { ++it; continue; }
            if (it->leaves_at && *it->leaves_at <= tick) { it = visitors.erase(it); continue; }
            const Visit result = visit(client, command, it->cookie);
            if (result.answered && !result.queued && !it->leaves_at) {
                it->leaves_at = tick + std::chrono::milliseconds{browse(random)};
                --waiting;
            }
            if (!result.cookie.empty()) it->cookie = result.cookie;
            it->next_request = tick + refresh;
            ++it;
        }
        // Newcomers, a tenth of a second's worth at most, until the line is long enough again.
        for (int arrived = 0; waiting < static_cast<size_t>(command.queue) && arrived < std::max(1, command.arrivals_per_second / 10); ++arrived) {
            const Visit result = visit(client, command, "");
            if (result.cookie.empty()) continue;
            Visitor visitor{result.cookie, tick + refresh, std::nullopt};
            if (result.queued) ++waiting; else visitor.leaves_at = tick + std::chrono::milliseconds{browse(random)};
            visitors.push_back(std::move(visitor));
        }
        std::this_thread::sleep_until(tick + std::chrono::milliseconds{100});
    }
}

} // namespace

void add_load_command(CLI::App& root, Context&) {
    auto command = std::make_shared<LoadCommand>();
    CLI::App* load = root.add_subcommand("load", "Keep a room full with browser-like visitors (for demos; runs until stopped)");
    load->add_option("--edge", command->edge, "The edge listener, HOST:PORT")->capture_default_str();
    load->add_option("--host", command->host, "The Host the visitors ask for")->capture_default_str();
    load->add_option("--path", command->path, "The path they ask for")->capture_default_str();
    load->add_option("--queue", command->queue, "How many visitors to keep waiting in line")->check(CLI::Range(1, 100000))->capture_default_str();
    load->add_option("--arrivals-per-second", command->arrivals_per_second, "At most this many new visitors a second")
        ->check(CLI::Range(1, 10000))->capture_default_str();
    load->add_option("--refresh", command->refresh_seconds, "Seconds between a waiting visitor's requests")->check(CLI::Range(1, 600))->capture_default_str();
    load->add_option("--browse", command->browse_seconds, "Admitted visitors browse for up to this many seconds, then leave")
        ->check(CLI::Range(0, 3600))->capture_default_str();
    load->add_option("--wait", command->wait_seconds, "Seconds to wait for the edge to route the room")->check(CLI::Range(1, 3600))->capture_default_str();
    load->footer("Example (what make demo runs):\n  wr load --edge 127.0.0.1:8080 --host localhost --queue 100");
    load->callback([command] { run_load(*command); });
}

} // namespace wr::cli
