// A node's copy of a shared room: decide locally, journal, push, rebuild from the answer.
#include "state/room_replica.h"

#include <algorithm>
#include <cmath>

#include "state/contribution.h"

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

// Batches the store acknowledged are kept this long, so that the waiting users, arrivals and
// browsing in them can go again if a failover to a replica that had not copied them yet loses
// them (Redis replicates asynchronously, usually milliseconds behind). The admission counts do
// not depend on it: they are sent again from the store's copy of the contribution, whatever
// the lag.
constexpr util::Milliseconds k_history{10000};

} // namespace

const char* to_string(Footing footing) {
    switch (footing) {
    case Footing::granted: return "granted";
    case Footing::cold: return "cold";
    case Footing::degraded: break;
    }
    return "degraded";
}

void RoomReplica::Recorder::record(const queue::LedgerChange& change) {
    replica->m_open.record(change);
    if (change.kind == Kind::release_seed) replica->m_view_seed_minute = std::max(replica->m_view_seed_minute, change.key);
    // The grant is measured against admissions (and the local share against active users).
    if (change.kind == Kind::admitted || change.kind == Kind::active) replica->m_since_basis.record(change);
}

RoomReplica::RoomReplica(ReplicaSettings settings) : m_settings(settings) {
    m_recorder.replica = this;
    m_view.set_journal(&m_recorder);
    m_view.set_shared_view(true);
}

void RoomReplica::touch(const queue::Policy* policy, util::TimePoint now) {
    m_last_activity = now;
    if (policy) m_policy = *policy;
}

Footing RoomReplica::footing(util::TimePoint now) const {
    if (m_last_reply && now < m_grant_until) return Footing::granted;
    // No grant in force, but no sign of trouble either: the room is new here or woke up, and
    // its sync is on its way.
    if (!m_failed_since_reply) return Footing::cold;
    return Footing::degraded;
}

int64_t RoomReplica::allowance(const queue::Policy& policy, util::TimePoint now) const {
    const int64_t minute = queue::minute_of(now);
    switch (footing(now)) {
    case Footing::granted: {
        const int64_t total_left = m_grant.total - m_since_basis.admitted_total();
        const int64_t minute_left = (m_grant.minute == minute ? m_grant.this_minute : 0) - m_since_basis.admitted(minute);
        return std::min(total_left, minute_left);
    }
    case Footing::cold: return 1 - m_cold_admissions;
    case Footing::degraded: break;
    }
    switch (m_settings.failure_mode) {
    case FailureMode::open: return queue::k_unlimited_allowance;
    case FailureMode::closed: return 0;
    case FailureMode::local_share: break;
    }
    // This node's share of what was free at the last answer (aging as sessions end), less what it
    // has taken since.
    const int64_t free_total = policy.total_active_users - std::max<int64_t>(0, m_global.active_users(now, policy.session_duration));
    const int64_t free_minute = policy.new_users_per_minute - m_global.admitted(queue::minute_of(now));
    return std::min(local_share_allowance(m_share, free_total, std::max<int64_t>(0, m_since_basis.active_users(now, policy.session_duration))),
                    local_share_allowance(m_share, free_minute, m_since_basis.admitted(minute)));
}

bool RoomReplica::counts_as_demand(const queue::Outcome& outcome) const {
    return outcome.newly_admitted || (outcome.verdict == queue::Verdict::queue && outcome.counted);
}

int grant_retry_seconds(util::Milliseconds sync_interval) {
    const int64_t two_syncs = (2 * sync_interval.count() + 999) / 1000;
    return static_cast<int>(std::clamp<int64_t>(two_syncs, 2, queue::k_refresh_interval_seconds));
}

queue::Outcome RoomReplica::check_in(const queue::Policy& policy, const std::optional<queue::Ticket>& ticket, util::TimePoint now,
                                     util::Random& random, queue::Arrival arrival) {
    touch(&policy, now);
    m_view.prune(now);
    const Footing where = footing(now);
    queue::Policy effective = policy;
    if (where == Footing::degraded && m_settings.failure_mode == FailureMode::open &&
        (policy.method == model::QueueingMethod::fifo || policy.method == model::QueueingMethod::random))
        effective.method = model::QueueingMethod::passthrough; // fail open: everyone in, still counted
    queue::Outcome outcome = queue::check_in(m_view, effective, ticket, now, random, arrival, allowance(policy, now));
    // Waiting only because this node's grant is spent while the room has a place: the next grant
    // is a sync or two away, so the visitor comes back in seconds, not a whole refresh interval
    // (a burst that lands unevenly on the nodes would otherwise leave places empty for 20 s).
    // Not while the store is away: then the failure mode rules, and a short refresh would only
    // multiply the requests of everyone waiting for the outage.
    if (outcome.short_of_allowance && outcome.counted && where != Footing::degraded)
        outcome.ticket.refresh_interval_seconds = grant_retry_seconds(m_settings.sync_interval);
    if (counts_as_demand(outcome)) ++m_demand;
    if (outcome.newly_admitted && where == Footing::cold) ++m_cold_admissions;
    return outcome;
}

bool RoomReplica::try_join(const queue::ClientAddress& client, int64_t limit, util::TimePoint now) {
    touch(nullptr, now);
    if (limit <= 0) return true;
    const int64_t minute = queue::minute_of(now);
    if (minute != m_join_minute) {
        m_join_minute = minute;
        m_joins_global.clear();
        m_joins_local.clear();
    }
    const auto global = m_joins_global.find(client);
    int64_t& local = m_joins_local[client];
    if ((global == m_joins_global.end() ? 0 : global->second) + local >= limit) return false;
    ++local;
    m_open.add_join(minute, client, 1);
    return true;
}

bool RoomReplica::revoke(const queue::Policy& policy, const queue::Ticket& ticket, util::TimePoint now) {
    touch(&policy, now);
    m_view.prune(now);
    return queue::revoke(m_view, policy, ticket, now);
}

queue::RoomFigures RoomReplica::figures(const queue::Policy& policy, util::TimePoint now) {
    m_view.prune(now);
    return queue::room_figures(m_view, policy, now);
}

bool RoomReplica::needs_push() const { return m_resync || !m_open.empty() || !m_batches.empty(); }

RoomPush RoomReplica::begin_sync(const std::string& room_id, util::TimePoint now, bool read_only) {
    RoomPush push;
    push.room_id = room_id;
    push.read_only = read_only;
    push.epoch = m_epoch;
    // The store's release seed of this minute, once this node draws its own (only rooms that
    // release places at random do), until the store's is in.
    push.want_seeds = m_view_seed_minute >= queue::minute_of(now) && m_store_seed_minute < queue::minute_of(now);
    push.now_ms = now.time_since_epoch().count();
    push.total_active_users = m_policy.total_active_users;
    push.new_users_per_minute = m_policy.new_users_per_minute;
    push.session_minutes = m_policy.session_duration.count();
    push.revocation_cursor = m_revocation_cursor;
    push.version = m_version;
    push.generation = m_generation;
    push.in_flight_allowance = std::clamp<int64_t>(allowance(m_policy, now), 0, std::max<int64_t>(0, m_policy.total_active_users));
    m_read_only_in_flight = read_only;
    m_sent_at = now;
    if (read_only) return push;
    // The store asked for this node's copy of the counts, as of the digests read last; and the
    // room's merger sends the raw records it got, summed.
    if (m_snapshot_wanted && m_generation > 0) push.snapshot = m_global.changes();
    m_snapshot_wanted = false;
    if (m_digest) {
        push.digest_from = m_digest->from;
        push.digest_to = m_digest->to;
        push.digest = m_digest->changes;
    }

    // Demand since the last push, as a rate, averaged.
    const util::Milliseconds elapsed = m_last_push ? now - *m_last_push : m_settings.sync_interval;
    m_weight = next_demand_weight(m_weight, m_demand, elapsed, m_settings.sync_interval);
    const util::Milliseconds window = share_window(m_settings.sync_interval);
    m_demand_history.emplace_back(now, m_demand);
    while (!m_demand_history.empty() && now - m_demand_history.front().first >= window) m_demand_history.pop_front();
    if (!m_first_push) m_first_push = now;
    int64_t in_window = 0;
    for (const auto& [at, demand] : m_demand_history) in_window += demand;
    const util::Milliseconds covered = std::clamp<util::Milliseconds>(now - *m_first_push, m_settings.sync_interval, window);
    m_demand = 0;
    m_last_push = now;
    push.demand_rate_milli = std::llround(m_weight * 1000);
    push.share_weight_milli = std::llround(static_cast<double>(in_window) * 1000.0 / static_cast<double>(covered.count()) * 1000);

    // Seal what was journaled since the last push into a batch; a batch that never left this
    // node may still grow, one that may have reached the store stays as it was sent.
    if (!m_open.empty()) {
        if (!m_batches.empty() && !m_batches.back().frozen) m_batches.back().changes.merge(m_open);
        else m_batches.push_back(Batch{++m_last_sequence, m_open});
        m_open.clear();
    }
    for (const Batch& batch : m_batches) push.batches.push_back({batch.sequence, batch.changes.changes(), batch.changes.joins()});
    // What the store acknowledged longer ago than any count lives (its keys' time to live) counts
    // nowhere any more, and the store forgets a node run that has not pushed for an hour: claimed
    // after that, it would be answered `lost` for nothing.
    const bool acknowledged_long_ago = m_pushed_ok_at && now - *m_pushed_ok_at > std::chrono::seconds{k_room_ttl_seconds};
    push.acknowledged_sequence = acknowledged_long_ago ? 0 : m_acknowledged_sequence;
    if (!m_batches.empty()) push.contribution = encode_contribution(contribution_with_batches(now));
    m_batches_in_flight = m_batches.size();
    m_resync = false;
    return push;
}

ChangeSet RoomReplica::contribution_with_batches(util::TimePoint now) const {
    ChangeSet counts = m_contribution.admission_counts();
    for (const Batch& batch : m_batches)
        if (!batch.counted) counts.merge(batch.changes.admission_counts());
    counts.prune(now);
    return counts;
}

void RoomReplica::sync_failed(bool maybe_applied, util::TimePoint) {
    if (!m_read_only_in_flight) {
        for (size_t i = 0; i < m_batches_in_flight && i < m_batches.size(); ++i)
            if (maybe_applied) m_batches[i].frozen = true;
        m_failed_since_reply = true;
    }
    m_batches_in_flight = 0;
}

void RoomReplica::start_over(const RoomReply& reply, util::TimePoint now) {
    // The store lost the room (a restart without persistence, or every key expired): what this
    // node still counts goes again, whole, in one new batch; other nodes do the same.
    m_epoch = reply.epoch;
    ChangeSet everything = m_contribution;
    for (const Batch& batch : m_batches)
        if (!batch.counted) everything.merge(batch.changes);
    everything.prune(now);
    // The view keeps the old global counts until the store's new ones come in (they include
    // this node's contribution, now in the batch too: counted twice for a round trip, never
    // less than once).
    m_contribution.replay_counts_onto(m_view);
    for (const Batch& batch : m_batches)
        if (batch.counted) batch.changes.unreplay_counts_from(m_view);
    for (Batch& batch : m_history) drop_from_view(batch); // in m_contribution
    m_batches.clear();
    m_history.clear();
    m_digest.reset();
    m_contribution.clear();
    if (!everything.empty()) m_batches.push_back(Batch{++m_last_sequence, std::move(everything)});
    m_acknowledged_sequence = 0;
    m_trimmed_through = 0;
    m_revocation_cursor = 0;
}

void RoomReplica::send_again_what_was_lost(const RoomReply& reply, util::TimePoint now) {
    // The store acknowledged batches up to m_acknowledged_sequence and has them no more: it
    // failed over to a replica that had copied them only up to stored_sequence_before. Its
    // copy of this node run's contribution is as of that batch, so the admission counts it
    // lacks are exactly what this node knows it contributed less that copy, however far behind
    // it is. A copy that does not decode (the key was damaged) counts as none: everyone counts
    // again rather than some not at all.
    const uint64_t stored = reply.stored_sequence_before;
    ChangeSet missing = m_contribution.admission_counts();
    if (const auto copy = decode_contribution(reply.stored_contribution)) missing.subtract_counts(*copy);
    // Revocations and seeds: all again, since applying one twice changes nothing.
    missing.merge(m_contribution.revocations_and_seeds());
    // The rest from the batches kept: those the store acknowledged after the one it has.
    for (Batch& batch : m_history)
        if (batch.sequence > stored) {
            missing.merge(batch.changes.other_counts());
            drop_from_view(batch); // the batch below sends it again
        }
    std::erase_if(m_history, [stored](const Batch& batch) { return batch.sequence > stored; });
    m_digest.reset();
    missing.prune(now);
    m_recovered_batches += static_cast<int64_t>(m_acknowledged_sequence - std::min(stored, m_acknowledged_sequence));
    if (m_trimmed_through > stored) m_lost_batches += static_cast<int64_t>(m_trimmed_through - stored);
    m_trimmed_through = std::min(m_trimmed_through, stored);
    m_acknowledged_sequence = stored;
    // After the batches not acknowledged yet (numbers above what was acknowledged), under a new
    // number, and frozen: it must not take in new changes, which m_contribution lacks. In the
    // view too, as every batch is (counted twice until the store's counts come in).
    missing.replay_counts_onto(m_view);
    if (!missing.empty()) m_batches.push_back(Batch{++m_last_sequence, std::move(missing), true, true});
}

void RoomReplica::end_sync(const RoomReply& reply, util::TimePoint now) {
    if (reply.status == RoomReply::Status::failed) {
        // This room alone failed in the store (a damaged key): as if the store were away for it.
        sync_failed(true, now);
        return;
    }
    if (!m_read_only_in_flight &&
        (reply.status == RoomReply::Status::epoch_changed || reply.status == RoomReply::Status::lost)) {
        // Nothing was applied: repair, and push again at once.
        if (reply.status == RoomReply::Status::epoch_changed) start_over(reply, now);
        else send_again_what_was_lost(reply, now);
        m_batches_in_flight = 0;
        m_resync = true;
        m_generation = -1; // the next answer brings every count
        return;
    }

    if (!m_read_only_in_flight) {
        m_pushed_ok_at = now;
        for (size_t i = 0; i < m_batches_in_flight && !m_batches.empty(); ++i) {
            Batch batch = std::move(m_batches.front());
            m_batches.pop_front();
            // In the view until a digest covers the store's record of it.
            m_acknowledged_sequence = batch.sequence;
            if (!batch.counted) m_contribution.merge(batch.changes);
            batch.acknowledged = now;
            batch.record = reply.own_last_record;
            batch.in_view = true;
            m_history.push_back(std::move(batch));
        }
        m_batches_in_flight = 0;
        while (!m_history.empty() && !m_history.front().in_view && now - m_history.front().acknowledged > k_history) {
            m_trimmed_through = m_history.front().sequence;
            m_history.pop_front();
        }
        if (queue::minute_of(now) != m_contribution_pruned_minute) {
            m_contribution_pruned_minute = queue::minute_of(now);
            m_contribution.prune(now);
        }

        m_grant = reply.grant;
        m_grant_until = *m_sent_at + grant_validity(m_settings.sync_interval);
        m_share = reply.share;
        m_share_known = true;
        // The grant counts from the push: what was admitted since then counts against it.
        m_since_basis.clear();
        for (const queue::LedgerChange& change : m_open.changes())
            if (change.kind == Kind::admitted || change.kind == Kind::active) m_since_basis.record(change);
        m_cold_admissions = 0;
        m_failed_since_reply = false;
        m_last_reply = now;
        m_snapshot_wanted = reply.snapshot_wanted;
        m_digest.reset();
        if (reply.merger && reply.raw_records > 0) {
            ChangeSet summed;
            for (const queue::LedgerChange& change : reply.raw) summed.record(change);
            m_digest = Digest{reply.digested, reply.digested + reply.raw_records, summed.changes()};
        }
        if (reply.epoch != 0) m_epoch = reply.epoch;
    }
    m_last_read = now;

    take_counts(reply);
    drop_digested(reply.digested);
    for (const auto& [session, until] : reply.revocations) {
        m_revocations[session] = until;
        m_view.apply({Kind::revoked, static_cast<int64_t>(session), until, 0});
    }
    m_revocation_cursor = reply.revocation_cursor;
    const int64_t now_ms = now.time_since_epoch().count();
    std::erase_if(m_revocations, [now_ms](const auto& entry) { return entry.second <= now_ms; });
    if (queue::minute_of(now) != m_global_pruned_minute) {
        m_global_pruned_minute = queue::minute_of(now);
        m_global.prune(now);
    }

    // Joins: the global count of each address this node pushed, plus what it has not pushed yet.
    const int64_t minute = queue::minute_of(now);
    if (minute != m_join_minute) {
        m_join_minute = minute;
        m_joins_global.clear();
    }
    if (queue::minute_of(*m_sent_at) == minute)
        for (const auto& [address, joins] : reply.joins) m_joins_global[address] = joins;
    m_joins_local.clear();
    const auto add_local = [&](const ChangeSet& changes) {
        for (const JoinChange& join : changes.joins())
            if (join.minute == minute) m_joins_local[join.address] += join.delta;
    };
    for (const Batch& batch : m_batches) add_local(batch.changes);
    add_local(m_open);

}

void RoomReplica::drop_from_view(Batch& batch) {
    if (!batch.in_view) return;
    batch.changes.unreplay_counts_from(m_view);
    batch.in_view = false;
}

void RoomReplica::drop_digested(int64_t digested) {
    for (Batch& batch : m_history)
        if (batch.record < digested) drop_from_view(batch);
}

void RoomReplica::take_counts(const RoomReply& reply) {
    // Every count there is (a new generation of the store's state, or a node new to it): the old
    // counts leave the view first.
    if (reply.whole) {
        m_global.unreplay_counts_from(m_view);
        m_global.clear();
    }
    for (const queue::LedgerChange& change : reply.changes) {
        m_global.record(change);
        m_view.apply(change);
    }
    // The first seed any node pushed for a minute is the minute's; an older minute's does not
    // replace the one the view holds.
    for (const auto& [minute, seed] : reply.seeds) {
        m_store_seed_minute = std::max(m_store_seed_minute, minute);
        if (minute >= m_view_seed_minute) {
            m_view_seed_minute = minute;
            m_view.apply({Kind::release_seed, minute, seed, 0});
        }
    }
    m_version = reply.version;
    m_generation = reply.generation;
}

} // namespace wr::state
