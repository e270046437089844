// Drains, batches and pushes an edge's analytics.
#include "fleet/analytics_pusher.h"

#include <nlohmann/json.hpp>
#include <set>

#include "fleet/guard_loop.h"
#include "util/files.h"
#include "util/log.h"

namespace wr::fleet {
namespace {

// A backlog (after an outage) goes out in a few pushes within one round, not one per interval.
constexpr int k_batches_per_round = 4;

Outbox load_outbox(const std::filesystem::path& file) {
    const auto text = util::read_text_file(file);
    if (!text) return Outbox{};
    std::optional<Outbox> outbox = Outbox::from_json(nlohmann::json::parse(*text, nullptr, false));
    std::error_code ignored;
    std::filesystem::remove(file, ignored); // from here on it lives in memory; stop() writes it again
    if (!outbox) {
        util::log_warn("analytics", "ignoring " + file.string() + ": it is not an analytics outbox");
        return Outbox{};
    }
    util::log_info("analytics", "resuming the analytics not yet pushed from " + file.string());
    return std::move(*outbox);
}

} // namespace

AnalyticsPusher::AnalyticsPusher(ControlClient client, std::filesystem::path outbox_file, PusherSources sources, std::string node_name,
                                 const util::Clock& clock, std::chrono::milliseconds interval)
    : m_client(std::move(client)), m_outbox_file(std::move(outbox_file)), m_sources(sources), m_node_name(std::move(node_name)),
      m_clock(clock), m_interval(interval), m_outbox(load_outbox(m_outbox_file)) {}

AnalyticsPusher::~AnalyticsPusher() { stop(); }

NodeReport AnalyticsPusher::report(util::TimePoint now) const {
    NodeReport report;
    report.node = m_node_name;
    report.role = "edge";
    report.health = m_sources.counters.health();
    const edge::Snapshot snapshot = m_sources.config.snapshot();
    if (!snapshot.config) return report;
    for (const auto& room : snapshot.config->rooms) {
        const model::LiveFigures live = m_sources.live.figures(room->id, now);
        // An empty room is left out: the control node reads its absence as zero, and a thousand
        // idle rooms do not ride along every push.
        if (live.active_users == 0 && live.queued_users == 0) continue;
        analytics::RoomSample& sample = report.rooms.emplace_back(analytics::RoomSample{
            room->id, live.active_users, live.queued_users, live.total_active_users_limit, live.new_users_per_minute_limit,
            live.max_estimated_minutes});
        sample.admitted_last_minute = live.admitted_last_minute;
        sample.browsing_users = live.browsing_users;
    }
    return report;
}

void AnalyticsPusher::round() {
    std::lock_guard lock(m_round_mutex);
    const util::TimePoint now = m_clock.now();
    // Drain every room counted, then forget rooms the configuration no longer has.
    RoomMinutes drained;
    const edge::Snapshot snapshot = m_sources.config.snapshot();
    std::set<std::string> live_rooms;
    if (snapshot.config)
        for (const auto& room : snapshot.config->rooms) live_rooms.insert(room->id);
    for (const auto& [room_id, stats] : m_sources.registry.rooms()) {
        stats->drain(drained[room_id]);
        if (!live_rooms.contains(room_id)) m_sources.registry.forget(room_id);
    }
    m_outbox.add(drained);
    if (m_sources.origins) m_sources.origins->log_failures(now);

    const NodeReport node_report = report(now);
    for (int sent = 0; sent < k_batches_per_round; ++sent) {
        const AnalyticsBatch* batch = m_outbox.next();
        if (!batch && sent > 0) break; // the report went with the batches
        PushMessage message{node_report, batch ? std::optional<AnalyticsBatch>(*batch) : std::nullopt};
        const ControlClient::Answer answer = m_client.push(push_body(message));
        if (answer.outcome != ControlClient::Outcome::ok) {
            if (m_guard_applied && now - m_guard_heard >= k_guard_hold) {
                apply_published_guard(nlohmann::json::object(), m_sources.config, *m_sources.origins);
                m_guard_applied = false;
                util::log_warn("guard", "no word from the control node for " + std::to_string(k_guard_hold.count()) +
                                            " s: the rooms' configured limits apply until it answers again");
            }
            if (m_reachable.exchange(false) || answer.message != m_last_error)
                util::log_warn("analytics", "cannot push analytics to the control node at " + m_client.url().text() + " (" +
                                                answer.message + "); they wait on this node and go once it answers");
            m_last_error = answer.message;
            return;
        }
        if (!m_reachable.exchange(true)) util::log_info("analytics", "pushing analytics to the control node again");
        m_last_error.clear();
        const nlohmann::json reply = nlohmann::json::parse(answer.body, nullptr, false);
        const bool answered = reply.is_object() && reply.contains("result") && reply["result"].is_object();
        if (sent == 0 && answered && m_sources.origins) {
            // The guard's word, every round: rooms it does not name go back to their configured limits.
            apply_published_guard(reply["result"].value("guard", nlohmann::json::object()), m_sources.config, *m_sources.origins);
            m_guard_heard = now;
            m_guard_applied = true;
        }
        if (!batch) break;
        const bool acknowledged = reply.is_object() && reply.contains("result") && reply["result"].is_object() &&
                                  reply["result"].value("acknowledged", nlohmann::json()) == batch->sequence;
        if (!acknowledged) return; // sent again next round, unchanged
        m_outbox.acknowledge(batch->sequence);
    }
}

void AnalyticsPusher::push_now() { round(); }

bool AnalyticsPusher::control_reachable() const { return m_reachable.load(); }

void AnalyticsPusher::start() { m_thread = std::thread([this] { run(); }); }

void AnalyticsPusher::stop() {
    {
        std::lock_guard lock(m_stop_mutex);
        if (m_stopped) return;
        m_stopped = true;
        m_stopping = true;
    }
    m_stop_signal.notify_all();
    if (m_thread.joinable()) m_thread.join();
    try {
        round();
    } catch (const std::exception& error) {
        util::log_error("analytics", std::string("the last push failed: ") + error.what());
    }
    std::lock_guard lock(m_round_mutex);
    if (m_outbox.empty()) return;
    try {
        util::write_secret_file(m_outbox_file, m_outbox.to_json().dump());
        util::log_info("analytics", "kept the analytics not yet pushed in " + m_outbox_file.string() + "; they go after the restart");
    } catch (const std::exception& error) {
        util::log_error("analytics", std::string("the analytics not yet pushed are lost: ") + error.what());
    }
}

void AnalyticsPusher::run() {
    std::unique_lock lock(m_stop_mutex);
    while (!m_stop_signal.wait_for(lock, m_interval, [this] { return m_stopping; })) {
        lock.unlock();
        try {
            round();
        } catch (const std::exception& error) {
            util::log_error("analytics", std::string("pushing analytics failed: ") + error.what());
        }
        lock.lock();
    }
}

} // namespace wr::fleet
