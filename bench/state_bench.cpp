// What the shared state costs Redis (docs/design.md, "Capacity"): K simulated nodes, each with
// the real sync code (state::SharedCounters over the store `--state` names, one connection per
// node), each serving the same R rooms with V visits per room between two syncs, against a
// redis-server the caller pinned to a core of its own (bench/state.sh). Paced, every node syncs
// every interval (K × R ÷ interval room-syncs a second); unpaced, as fast as the client can.
// Reports the room-syncs per second done, Redis's CPU time per room-sync from its process
// (/proc/PID/stat) and from INFO commandstats, the share of one core it used, and the
// room-syncs per second one core would carry at that cost.
//
// Before the measurement every room gets `--history-minutes` of traffic (default 30: the half
// hour of figures a room keeps), played on a clock that runs ten seconds a round and ends at the
// present, so that the rooms hold what a room that has been busy for a while holds.
//
//   wr_bench_state --state redis://127.0.0.1:6399/0 --redis-pid 1234 [--redis-pid …]
//                  --nodes 100 --rooms 100 --visits 2 --interval-ms 250 --seconds 10 [--threads 1]
//                  [--history-minutes 30] [--label text]
#include <hiredis/hiredis.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

#include "state/make_counters.h"
#include "state/shared_counters.h"
#include "state/state_url.h"
#include "util/log.h"
#include "util/random.h"

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Options {
    std::string state;
    std::vector<int> redis_pids;
    int nodes = 1;
    int rooms = 200;
    int visits = 2;
    int interval_ms = 250; // 0: unpaced
    int seconds = 10;
    int threads = 1;
    int history_minutes = 30;
    std::string label;
};

// The system clock, or a past moment that the warm-up moves forward to the present.
class BenchClock final : public wr::util::Clock {
public:
    wr::util::TimePoint now() const override {
        const int64_t set = m_set.load();
        return set ? wr::util::TimePoint{wr::util::Milliseconds{set}} : m_system.now();
    }
    void set(wr::util::TimePoint to) { m_set = to.time_since_epoch().count(); }
    void run_free() { m_set = 0; }

private:
    wr::util::SystemClock m_system;
    std::atomic<int64_t> m_set{0};
};

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr, "wr_bench_state: %s\n", why.c_str());
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) usage("a value after " + flag);
        const std::string value = argv[++i];
        if (flag == "--state") options.state = value;
        else if (flag == "--redis-pid") options.redis_pids.push_back(std::stoi(value));
        else if (flag == "--nodes") options.nodes = std::stoi(value);
        else if (flag == "--rooms") options.rooms = std::stoi(value);
        else if (flag == "--visits") options.visits = std::stoi(value);
        else if (flag == "--interval-ms") options.interval_ms = std::stoi(value);
        else if (flag == "--seconds") options.seconds = std::stoi(value);
        else if (flag == "--threads") options.threads = std::stoi(value);
        else if (flag == "--history-minutes") options.history_minutes = std::stoi(value);
        else if (flag == "--label") options.label = value;
        else usage("unknown flag " + flag);
    }
    if (options.state.empty() || options.redis_pids.empty()) usage("--state and --redis-pid are needed");
    return options;
}

// CPU seconds a process has used (user + system).
double cpu_seconds(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int index = 3; fields >> field; ++index) {
        if (index == 14) utime = std::stod(field);
        if (index == 15) {
            stime = std::stod(field);
            break;
        }
    }
    return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// INFO commandstats of every server: calls and microseconds per command name, summed.
struct CommandStats {
    std::map<std::string, std::pair<double, double>> by_command; // name → (calls, usec)
};

CommandStats command_stats(const std::vector<wr::state::RedisEndpoint>& servers) {
    CommandStats out;
    for (const wr::state::RedisEndpoint& server : servers) {
        redisContext* context = redisConnect(server.host.c_str(), server.port);
        if (!context || context->err) usage("cannot reach " + server.host + ":" + std::to_string(server.port));
        auto* reply = static_cast<redisReply*>(redisCommand(context, "INFO commandstats"));
        std::istringstream lines(reply && reply->type == REDIS_REPLY_STRING ? std::string(reply->str, reply->len) : std::string());
        for (std::string line; std::getline(lines, line);) {
            // cmdstat_evalsha:calls=8935,usec=510152,usec_per_call=57.09,…
            if (!line.starts_with("cmdstat_")) continue;
            const size_t colon = line.find(':');
            const std::string name = line.substr(8, colon - 8);
            double calls = 0, usec = 0;
            std::sscanf(line.c_str() + colon + 1, "calls=%lf,usec=%lf", &calls, &usec);
            out.by_command[name].first += calls;
            out.by_command[name].second += usec;
        }
        if (reply) freeReplyObject(reply);
        redisFree(context);
    }
    return out;
}

struct Node {
    std::unique_ptr<wr::state::SharedCounters> counters;
    // Per room: sessions let in here, renewed by later visits.
    std::vector<std::vector<wr::queue::Ticket>> sessions;
    SteadyClock::time_point next_sync{};
};

} // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    wr::util::set_log_level(wr::util::LogLevel::error);
    const wr::state::StateUrl url = wr::state::parse_state_url(options.state);
    BenchClock clock;
    const std::chrono::milliseconds interval{options.interval_ms > 0 ? options.interval_ms : 250};

    // Room ids as the control plane makes them: 32 hex digits.
    std::vector<std::string> rooms;
    wr::util::SeededRandom ids(7);
    for (int r = 0; r < options.rooms; ++r) {
        char id[40];
        std::snprintf(id, sizeof id, "%016llx%016llx", static_cast<unsigned long long>(ids.next()), static_cast<unsigned long long>(ids.next()));
        rooms.emplace_back(id);
    }
    wr::queue::Policy policy;
    policy.total_active_users = 5000;
    policy.new_users_per_minute = 2000;

    std::vector<Node> nodes(static_cast<size_t>(options.nodes));
    for (int k = 0; k < options.nodes; ++k) {
        wr::state::SharedCountersOptions shared;
        shared.node_name = "bench-" + std::to_string(k);
        shared.sync_interval = interval;
        shared.start_thread = false;
        nodes[k].counters =
            std::make_unique<wr::state::SharedCounters>(shared, wr::state::make_shared_store(url, interval), clock);
        nodes[k].sessions.resize(rooms.size());
    }
    // Each node's first sync of each room (connection, script load, the rooms' creation) before
    // the measurement.
    const auto visit_all = [&](Node& node, wr::util::Random& random) {
        const auto now = clock.now();
        for (size_t r = 0; r < rooms.size(); ++r) {
            auto& sessions = node.sessions[r];
            for (int v = 0; v < options.visits; ++v) {
                std::optional<wr::queue::Ticket> ticket;
                if (v % 2 == 1 && !sessions.empty()) ticket = sessions[random.next() % sessions.size()];
                const auto outcome = node.counters->check_in(rooms[r], policy, ticket, now, random, wr::queue::Arrival::join);
                if (outcome.newly_admitted) {
                    if (sessions.size() < 64) sessions.push_back(outcome.ticket);
                    else sessions[random.next() % sessions.size()] = outcome.ticket;
                }
            }
        }
    };
    {
        wr::util::SeededRandom random(1);
        const wr::util::TimePoint present = clock.now();
        for (int round = options.history_minutes * 6; round >= 0; --round) {
            clock.set(present - std::chrono::seconds{10} * round);
            // One node a round fills the rooms' history (it is the room's, not a node's); every
            // node syncs each room at the end.
            Node& node = nodes[static_cast<size_t>(round) % nodes.size()];
            visit_all(node, random);
            node.counters->sync_once();
        }
        clock.run_free();
        for (Node& node : nodes) node.counters->sync_once();
    }

    const std::vector<wr::state::RedisEndpoint> servers = url.endpoints;
    const CommandStats stats_before = command_stats(servers);
    std::vector<double> cpu_before;
    for (const int pid : options.redis_pids) cpu_before.push_back(cpu_seconds(pid));
    const double client_before = cpu_seconds(getpid());
    const auto started = SteadyClock::now();
    const auto deadline = started + std::chrono::seconds{options.seconds};
    std::atomic<uint64_t> room_syncs{0}, rounds{0}, failed{0};

    std::vector<std::thread> threads;
    for (int t = 0; t < options.threads; ++t)
        threads.emplace_back([&, t] {
            wr::util::SeededRandom random(100 + static_cast<uint64_t>(t));
            // Node k syncs at started + k × interval ÷ K + n × interval: spread over the interval.
            for (int k = t; k < options.nodes; k += options.threads)
                nodes[k].next_sync = started + interval * k / options.nodes;
            while (SteadyClock::now() < deadline) {
                SteadyClock::time_point earliest = deadline;
                for (int k = t; k < options.nodes; k += options.threads) {
                    Node& node = nodes[k];
                    if (options.interval_ms > 0 && node.next_sync > SteadyClock::now()) {
                        earliest = std::min(earliest, node.next_sync);
                        continue;
                    }
                    visit_all(node, random);
                    const uint64_t syncs_before = node.counters->health().syncs;
                    node.counters->sync_once();
                    const wr::state::Health health = node.counters->health();
                    if (health.syncs > syncs_before) room_syncs += static_cast<uint64_t>(health.rooms_synced);
                    else ++failed;
                    ++rounds;
                    node.next_sync += interval;
                    earliest = SteadyClock::now();
                }
                if (options.interval_ms > 0 && earliest > SteadyClock::now()) std::this_thread::sleep_until(earliest);
            }
        });
    for (std::thread& thread : threads) thread.join();

    const double seconds = std::chrono::duration<double>(SteadyClock::now() - started).count();
    const double client_cpu = cpu_seconds(getpid()) - client_before;
    double redis_cpu = 0;
    for (size_t i = 0; i < options.redis_pids.size(); ++i) redis_cpu += cpu_seconds(options.redis_pids[i]) - cpu_before[i];
    const CommandStats stats_after = command_stats(servers);
    double calls = 0, usec = 0;
    std::string by_command;
    for (const auto& [name, after] : stats_after.by_command) {
        const auto before = stats_before.by_command.count(name) ? stats_before.by_command.at(name) : std::pair<double, double>{0, 0};
        const double c = after.first - before.first, u = after.second - before.second;
        if (c <= 0 || name == "info") continue;
        calls += c;
        usec += u;
        char text[96];
        std::snprintf(text, sizeof text, "%s%s %.0f x %.1f us", by_command.empty() ? "" : ", ", name.c_str(), c, u / c);
        by_command += text;
    }
    const double syncs = static_cast<double>(room_syncs.load());
    const double rate = syncs / seconds;
    const double servers_count = static_cast<double>(options.redis_pids.size());
    const double redis_share = redis_cpu / seconds / servers_count; // of one core, per server
    const double us_per_sync = redis_cpu * 1e6 / syncs;
    std::printf("%s: %d node%s x %d rooms, %d visits/room/sync, %s, %d s\n", options.label.empty() ? "state" : options.label.c_str(),
                options.nodes, options.nodes == 1 ? "" : "s", options.rooms, options.visits,
                options.interval_ms > 0 ? ("synced every " + std::to_string(options.interval_ms) + " ms").c_str() : "unpaced",
                options.seconds);
    std::printf("  room-syncs           %10.0f /s  (%.0f in all, %.0f rounds, %llu failed)\n", rate, syncs, static_cast<double>(rounds.load()),
                static_cast<unsigned long long>(failed.load()));
    std::printf("  redis CPU            %10.1f %% of one core%s\n", 100 * redis_share,
                servers_count > 1 ? (" per server, " + std::to_string(options.redis_pids.size()) + " servers").c_str() : "");
    std::printf("  redis CPU/room-sync  %10.2f us (process time)\n", us_per_sync);
    std::printf("  commands             %10.2f us/room-sync inside commands; %.3f calls/room-sync (%s)\n", usec / syncs, calls / syncs,
                by_command.c_str());
    std::printf("  one core carries     %10.0f room-syncs/s at 100 %%, %.0f at 70 %%\n", 1e6 / us_per_sync, 0.7e6 / us_per_sync);
    std::printf("  client CPU/room-sync %10.2f us\n", client_cpu * 1e6 / syncs);
    return failed.load() > rounds.load() / 10 ? 1 : 0;
}
