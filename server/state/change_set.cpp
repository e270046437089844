// Merged changes of one node to a shared room.
#include "state/change_set.h"

#include <algorithm>

namespace wr::state {

using Kind = queue::LedgerChange::Kind;

void ChangeSet::record(const queue::LedgerChange& change) {
    switch (change.kind) {
    case Kind::active:
    case Kind::waiting:
    case Kind::admitted:
    case Kind::arrived:
    case Kind::checked_in:
    case Kind::browsed: {
        const auto [it, inserted] = m_counts.try_emplace(CountKey{change.kind, change.key, change.minute}, 0);
        if ((it->second += change.delta) == 0) m_counts.erase(it);
        break;
    }
    case Kind::revoked:
        m_revoked[static_cast<uint64_t>(change.key)] = change.minute;
        break;
    case Kind::release_seed:
        m_seeds[change.key] = change.minute;
        break;
    }
}

void ChangeSet::add_join(int64_t minute, const queue::ClientAddress& address, int64_t delta) {
    const auto [it, inserted] = m_joins.try_emplace({minute, address}, 0);
    if ((it->second += delta) == 0) m_joins.erase(it);
}

void ChangeSet::merge(const ChangeSet& other) {
    for (const auto& [key, delta] : other.m_counts) {
        const auto [it, inserted] = m_counts.try_emplace(key, 0);
        if ((it->second += delta) == 0) m_counts.erase(it);
    }
    for (const auto& [session, until] : other.m_revoked) m_revoked[session] = until;
    for (const auto& [minute, seed] : other.m_seeds) m_seeds[minute] = seed;
    for (const auto& [key, delta] : other.m_joins) {
        const auto [it, inserted] = m_joins.try_emplace(key, 0);
        if ((it->second += delta) == 0) m_joins.erase(it);
    }
}

void ChangeSet::subtract_counts(const ChangeSet& other) {
    for (const auto& [key, delta] : other.m_counts) {
        const auto [it, inserted] = m_counts.try_emplace(key, 0);
        if ((it->second -= delta) == 0) m_counts.erase(it);
    }
    for (const auto& [key, delta] : other.m_joins) {
        const auto [it, inserted] = m_joins.try_emplace(key, 0);
        if ((it->second -= delta) == 0) m_joins.erase(it);
    }
}

int64_t ChangeSet::count(const queue::LedgerChange& change) const {
    const auto it = m_counts.find(CountKey{change.kind, change.key, change.minute});
    return it == m_counts.end() ? 0 : it->second;
}

void ChangeSet::set_count(const queue::LedgerChange& change) {
    if (change.delta == 0) m_counts.erase(CountKey{change.kind, change.key, change.minute});
    else m_counts[CountKey{change.kind, change.key, change.minute}] = change.delta;
}

void ChangeSet::replay_counts_onto(queue::Ledger& ledger) const {
    for (const auto& [key, delta] : m_counts) ledger.apply({key.kind, key.key, key.minute, delta});
}

void ChangeSet::unreplay_counts_from(queue::Ledger& ledger) const {
    for (const auto& [key, delta] : m_counts) ledger.apply({key.kind, key.key, key.minute, -delta});
}

ChangeSet ChangeSet::admission_counts() const {
    ChangeSet out;
    for (const auto& [key, delta] : m_counts)
        if (key.kind == Kind::active || key.kind == Kind::admitted) out.m_counts.emplace(key, delta);
    return out;
}

ChangeSet ChangeSet::revocations_and_seeds() const {
    ChangeSet out;
    out.m_revoked = m_revoked;
    out.m_seeds = m_seeds;
    return out;
}

ChangeSet ChangeSet::other_counts() const {
    ChangeSet out;
    for (const auto& [key, delta] : m_counts)
        if (key.kind != Kind::active && key.kind != Kind::admitted) out.m_counts.emplace(key, delta);
    out.m_joins = m_joins;
    return out;
}

void ChangeSet::clear() {
    m_counts.clear();
    m_revoked.clear();
    m_seeds.clear();
    m_joins.clear();
}

bool ChangeSet::empty() const { return m_counts.empty() && m_revoked.empty() && m_seeds.empty() && m_joins.empty(); }

std::vector<queue::LedgerChange> ChangeSet::changes() const {
    std::vector<queue::LedgerChange> out;
    out.reserve(m_counts.size() + m_revoked.size() + m_seeds.size());
    for (const auto& [key, delta] : m_counts) out.push_back({key.kind, key.key, key.minute, delta});
    for (const auto& [session, until] : m_revoked) out.push_back({Kind::revoked, static_cast<int64_t>(session), until, 0});
    for (const auto& [minute, seed] : m_seeds) out.push_back({Kind::release_seed, minute, seed, 0});
    return out;
}

std::vector<JoinChange> ChangeSet::joins() const {
    std::vector<JoinChange> out;
    out.reserve(m_joins.size());
    for (const auto& [key, delta] : m_joins) out.push_back({key.first, key.second, delta});
    return out;
}

void ChangeSet::replay_onto(queue::Ledger& ledger) const {
    for (const queue::LedgerChange& change : changes()) ledger.apply(change);
}

int64_t ChangeSet::admitted(int64_t minute) const {
    const auto it = m_counts.find(CountKey{Kind::admitted, minute, 0});
    return it == m_counts.end() ? 0 : it->second;
}

int64_t ChangeSet::admitted_total() const {
    int64_t total = 0;
    for (auto it = m_counts.lower_bound(CountKey{Kind::admitted, INT64_MIN, INT64_MIN});
         it != m_counts.end() && it->first.kind == Kind::admitted; ++it)
        total += it->second;
    return total;
}

int64_t ChangeSet::active_users(util::TimePoint now, std::chrono::minutes session_duration) const {
    // The same window as queue::Ledger::active_users.
    const int64_t oldest = queue::minute_of(now) - session_duration.count();
    int64_t total = 0;
    for (auto it = m_counts.lower_bound(CountKey{Kind::active, oldest, INT64_MIN});
         it != m_counts.end() && it->first.kind == Kind::active; ++it)
        total += it->second;
    return total;
}

int64_t ChangeSet::joins_of(int64_t minute, const queue::ClientAddress& address) const {
    const auto it = m_joins.find({minute, address});
    return it == m_joins.end() ? 0 : it->second;
}

void ChangeSet::prune(util::TimePoint now) {
    const int64_t minute = queue::minute_of(now);
    const int64_t slot = queue::check_in_slot_of(now);
    std::erase_if(m_counts, [minute, slot](const auto& entry) {
        switch (entry.first.kind) {
        case Kind::active: return entry.first.key < minute - queue::k_active_retention_minutes;
        case Kind::waiting: return entry.first.minute < slot - queue::k_check_in_retention_slots;
        case Kind::admitted: return entry.first.key < minute - queue::k_rate_window_minutes - 1;
        case Kind::arrived: return entry.first.key < slot - queue::k_arrival_retention_slots - 1;
        case Kind::checked_in: return entry.first.key < slot - queue::k_check_in_retention_slots;
        case Kind::browsed: return entry.first.key < slot - queue::k_arrival_retention_slots - 1;
        default: return false;
        }
    });
    const int64_t now_ms = now.time_since_epoch().count();
    std::erase_if(m_revoked, [now_ms](const auto& entry) { return entry.second <= now_ms; });
    std::erase_if(m_seeds, [minute](const auto& entry) { return entry.first < minute - 1; });
    std::erase_if(m_joins, [minute](const auto& entry) { return entry.first.first < minute; });
}

} // namespace wr::state
