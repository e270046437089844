// Counters shared through a store: replicas per room, a sync thread, health and its log lines.
#include "state/shared_counters.h"

#include <cstdio>
#include <random>

#include "util/broken_pipes.h"
#include "util/log.h"

namespace wr::state {
namespace {

// What admission does during an outage, in the words of the log line that announces it.
std::string failure_words(FailureMode mode) {
    switch (mode) {
    case FailureMode::open: return "admitting everyone (--state-failure open)";
    case FailureMode::closed: return "admitting no one new, admitted visitors keep their sessions (--state-failure closed)";
    case FailureMode::local_share: break;
    }
    return "admitting from this node's last known share of each room's limits (--state-failure local-share)";
}

std::string random_suffix() {
    std::random_device device;
    char text[16];
    std::snprintf(text, sizeof text, "%08x", device());
    return text;
}

std::string seconds_text(util::Milliseconds duration) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(duration.count()) / 1000.0);
    return text;
}

} // namespace

SharedCounters::SharedCounters(SharedCountersOptions options, std::unique_ptr<SharedStore> store, const util::Clock& clock)
    : m_options(std::move(options)), m_store(std::move(store)), m_clock(clock),
      // A node name is shared by the node's runs; the suffix tells this run's batches apart.
      m_node_id(m_options.node_name + "-" + random_suffix()) {
    m_timing.grant_validity_ms = grant_validity(m_options.sync_interval).count();
    m_timing.node_liveness_ms = node_liveness(m_options.sync_interval).count();
    m_replica_settings.sync_interval = m_options.sync_interval;
    m_replica_settings.failure_mode = m_options.failure_mode;
    m_health.backend = m_store->backend();
    m_health.store = m_store->describe();
    m_health.failure_mode = to_string(m_options.failure_mode);
    m_health.node_id = m_node_id;
    m_health.sync_interval_ms = m_options.sync_interval.count();
    util::log_info("state", "shared state on " + m_health.store + " as node " + m_node_id + ", syncing every " +
                                std::to_string(m_options.sync_interval.count()) + " ms; when it cannot be reached: " +
                                failure_words(m_options.failure_mode));
    if (m_options.start_thread)
        m_thread = std::thread([this] {
            // hiredis writes with write(2): a Redis that went away must not end the process.
            util::block_broken_pipe_signal();
            run();
        });
}

SharedCounters::~SharedCounters() {
    {
        std::lock_guard lock(m_wake_mutex);
        m_stop = true;
    }
    m_wake_signal.notify_all();
    if (m_thread.joinable()) m_thread.join();
    // What this node counted since its last push goes to the store before it leaves.
    try {
        if (m_connected) sync_once();
    } catch (const std::exception&) {
    }
}

std::shared_ptr<SharedCounters::Room> SharedCounters::room(const std::string& room_id) {
    {
        std::shared_lock lock(m_rooms_mutex);
        if (const auto it = m_rooms.find(room_id); it != m_rooms.end()) return it->second;
    }
    std::unique_lock lock(m_rooms_mutex);
    auto& slot = m_rooms[room_id];
    if (!slot) slot = std::make_shared<Room>(m_replica_settings);
    return slot;
}

void SharedCounters::wake() {
    {
        std::lock_guard lock(m_wake_mutex);
        m_wake = true;
    }
    m_wake_signal.notify_one();
}

queue::Outcome SharedCounters::check_in(const std::string& room_id, const queue::Policy& policy,
                                        const std::optional<queue::Ticket>& ticket, util::TimePoint now, util::Random& random,
                                        queue::Arrival arrival) {
    const std::shared_ptr<Room> state = room(room_id);
    queue::Outcome outcome;
    bool cold = false;
    {
        std::lock_guard lock(state->mutex);
        outcome = state->replica.check_in(policy, ticket, now, random, arrival);
        cold = state->replica.footing(now) == Footing::cold;
    }
    if (cold) wake(); // a room new here (or waking up) syncs at once, not at the next tick
    return outcome;
}

bool SharedCounters::try_join(const std::string& room_id, const queue::ClientAddress& client, int64_t limit, util::TimePoint now) {
    if (limit <= 0) return true;
    const std::shared_ptr<Room> state = room(room_id);
    std::lock_guard lock(state->mutex);
    return state->replica.try_join(client, limit, now);
}

bool SharedCounters::revoke(const std::string& room_id, const queue::Policy& policy, const queue::Ticket& ticket, util::TimePoint now) {
    const std::shared_ptr<Room> state = room(room_id);
    std::lock_guard lock(state->mutex);
    return state->replica.revoke(policy, ticket, now);
}

queue::RoomFigures SharedCounters::figures(const std::string& room_id, const queue::Policy& policy, util::TimePoint now) {
    const std::shared_ptr<Room> state = room(room_id);
    const util::Milliseconds fresh_for = grant_validity(m_options.sync_interval);
    {
        std::lock_guard lock(state->mutex);
        const auto read = state->replica.last_read();
        const bool serving = now - state->replica.last_activity() < m_options.idle_after;
        if ((read && now - *read <= fresh_for) || serving || !m_connected) return state->replica.figures(policy, now);
        state->watched_until = now + std::chrono::seconds{10};
    }
    // Not served here: the sync thread reads the store's counts for it; wait for that round.
    const auto deadline = std::chrono::steady_clock::now() + m_options.sync_interval + std::chrono::seconds{1};
    uint64_t seen = 0;
    {
        std::lock_guard lock(m_wake_mutex);
        seen = m_rounds;
    }
    wake();
    while (std::chrono::steady_clock::now() < deadline) {
        {
            std::unique_lock lock(m_wake_mutex);
            if (!m_synced_signal.wait_until(lock, deadline, [&] { return m_rounds > seen || m_stop; })) break;
            seen = m_rounds;
        }
        std::lock_guard lock(state->mutex);
        const auto read = state->replica.last_read();
        if (read && *read >= now) break;
        if (!m_connected) break;
    }
    std::lock_guard lock(state->mutex);
    return state->replica.figures(policy, now);
}

void SharedCounters::forget(const std::string& room_id) {
    std::unique_lock lock(m_rooms_mutex);
    m_rooms.erase(room_id);
}

Health SharedCounters::health() const {
    std::lock_guard lock(m_health_mutex);
    return m_health;
}

void SharedCounters::run() {
    // Connect at once, so the first room served does not wait a connection longer for its
    // grant, and an unreachable store is in the log from the start.
    try {
        m_store->exchange(m_node_id, {}, m_timing);
        std::lock_guard lock(m_health_mutex);
        m_health.store = m_store->describe();
        util::log_info("state", "connected to " + m_health.store);
    } catch (const std::exception& error) {
        note_failure(m_clock.now(), error.what());
    }
    while (true) {
        {
            std::unique_lock lock(m_wake_mutex);
            // Every interval, and just after each minute starts: the per-minute limit frees then.
            const util::TimePoint now = m_clock.now();
            const util::Milliseconds to_next_minute =
                queue::minute_start(queue::minute_of(now) + 1) - now + util::Milliseconds{20};
            const util::Milliseconds wait = std::max(util::Milliseconds{1}, std::min(m_options.sync_interval, to_next_minute));
            m_wake_signal.wait_for(lock, wait, [&] { return m_wake || m_stop; });
            if (m_stop) return;
            m_wake = false;
        }
        try {
            sync_once();
        } catch (const std::exception& error) {
            util::log_error("state", std::string("sync round failed: ") + error.what());
        }
    }
}

void SharedCounters::sync_once() {
    std::lock_guard sync_lock(m_sync_mutex);
    const util::TimePoint now = m_clock.now();
    std::vector<std::pair<std::string, std::shared_ptr<Room>>> rooms;
    {
        std::shared_lock lock(m_rooms_mutex);
        rooms.assign(m_rooms.begin(), m_rooms.end());
    }
    // Which rooms go: those served here lately or with changes to push, and those someone
    // asked figures of (read only, about once a second).
    std::vector<RoomPush> pushes;
    std::vector<std::shared_ptr<Room>> pushed;
    for (const auto& [room_id, state] : rooms) {
        std::lock_guard lock(state->mutex);
        RoomReplica& replica = state->replica;
        if (now - replica.last_activity() < m_options.idle_after || replica.needs_push()) {
            pushes.push_back(replica.begin_sync(room_id, now));
            pushed.push_back(state);
        } else if (state->watched_until > now && (!replica.last_read() || now - *replica.last_read() >= std::chrono::seconds{1})) {
            pushes.push_back(replica.begin_sync(room_id, now, true));
            pushed.push_back(state);
        }
    }
    const auto finish_round = [&] {
        {
            std::lock_guard lock(m_wake_mutex);
            ++m_rounds;
        }
        m_synced_signal.notify_all();
    };
    if (pushes.empty()) {
        finish_round();
        return;
    }

    const auto started = std::chrono::steady_clock::now();
    std::vector<RoomReply> replies;
    std::string failure;
    bool maybe_applied = true;
    try {
        replies = m_store->exchange(m_node_id, pushes, m_timing);
        if (replies.size() != pushes.size()) failure = "the store answered " + std::to_string(replies.size()) + " of " + std::to_string(pushes.size()) + " rooms";
    } catch (const StoreUnavailable& error) {
        failure = error.what();
        maybe_applied = error.maybe_applied();
    } catch (const std::exception& error) {
        failure = error.what();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const util::TimePoint after = m_clock.now();
    bool resync = false;
    for (size_t i = 0; i < pushed.size(); ++i) {
        std::lock_guard lock(pushed[i]->mutex);
        if (failure.empty()) {
            pushed[i]->replica.end_sync(replies[i], after);
            resync = resync || pushed[i]->replica.needs_resync();
            note_room(pushes[i].room_id, *pushed[i], replies[i]);
        } else {
            pushed[i]->replica.sync_failed(maybe_applied, after);
        }
    }
    uint64_t rooms_failed = failure.empty() ? 0 : pushes.size();
    if (failure.empty())
        for (const RoomReply& reply : replies) rooms_failed += reply.status == RoomReply::Status::failed ? 1 : 0;
    int64_t degraded = 0;
    uint64_t recovered = 0, lost = 0;
    for (const auto& [room_id, state] : rooms) {
        std::lock_guard lock(state->mutex);
        if (after - state->replica.last_activity() < m_options.idle_after && state->replica.footing(after) == Footing::degraded) ++degraded;
        recovered += static_cast<uint64_t>(state->replica.recovered_batches());
        lost += static_cast<uint64_t>(state->replica.lost_batches());
    }
    {
        std::lock_guard lock(m_health_mutex);
        m_health.rooms_degraded = degraded;
        m_health.room_sync_failures += rooms_failed;
        m_health.batches_recovered = recovered;
        m_health.batches_lost = lost;
    }
    if (failure.empty()) note_success(after, seconds, pushes.size());
    else note_failure(after, failure);
    finish_round();
    if (resync) wake(); // the store lost rooms: push them whole at once
}

void SharedCounters::note_room(const std::string& room_id, Room& room, const RoomReply& reply) {
    // A room the store fails alone (one of its keys damaged) is logged once, and again when it
    // syncs again; the other rooms go on as they were.
    if (reply.status == RoomReply::Status::failed) {
        if (room.failing.empty())
            util::log_warn("state", "room " + room_id + ": " + health().store + " failed its sync: " + reply.error + "; it goes on " +
                                        failure_words(m_options.failure_mode) + " until it syncs again; the other rooms are not affected");
        room.failing = reply.error;
        return;
    }
    if (!room.failing.empty()) {
        util::log_info("state", "room " + room_id + ": syncing again");
        room.failing.clear();
    }
    // A rolling upgrade across the change of the shared state's format: the two releases keep
    // their counts apart until every edge runs this one (docs/operations.md).
    if (reply.earlier_release && !room.earlier_release)
        util::log_warn("state", "room " + room_id + ": edges of an earlier wr release sync it too, in the shared state's earlier format; "
                                "the two groups do not share counts (each admits up to the room's limits) until every edge runs this release");
    else if (!reply.earlier_release && room.earlier_release)
        util::log_info("state", "room " + room_id + ": no edge of an earlier release syncs it any more");
    room.earlier_release = reply.earlier_release;
}

void SharedCounters::note_success(util::TimePoint now, double seconds, size_t rooms) {
    std::lock_guard lock(m_health_mutex);
    if (!m_health.connected) {
        util::log_info("state", "reached " + m_store->describe() + " again after " + seconds_text(now - m_health.since) +
                                    "; pushing what this node counted meanwhile, counts reconcile");
    }
    m_health.connected = true;
    m_connected = true;
    m_health.detail.clear();
    m_health.store = m_store->describe();
    ++m_health.syncs;
    m_health.sync_times.observe(seconds);
    m_health.rooms_synced = static_cast<int64_t>(rooms);
    m_health.last_sync = now;
}

void SharedCounters::note_failure(util::TimePoint now, const std::string& why) {
    std::lock_guard lock(m_health_mutex);
    ++m_health.sync_failures;
    m_health.detail = why;
    if (m_health.connected) {
        m_health.connected = false;
        m_connected = false;
        m_health.since = now;
        ++m_health.outages;
        util::log_warn("state", "cannot reach " + m_health.store + ": " + why + "; " + failure_words(m_options.failure_mode) +
                                    " until it is back (never a 5xx to visitors)");
    }
}

} // namespace wr::state
