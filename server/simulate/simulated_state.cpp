// One ledger, or nodes sharing the room through the in-process store on virtual time.
#include "simulate/simulated_state.h"

#include <algorithm>

#include "state/memory_store.h"
#include "state/room_replica.h"

namespace wr::simulate {
namespace {

const std::string k_room = "00000000000000000000000000000001";

class OneNode final : public SimulatedState {
public:
    queue::Outcome check_in(const queue::Policy& policy, const std::optional<queue::Ticket>& ticket, util::TimePoint now,
                            util::Random& random) override {
        return queue::check_in(m_ledger, policy, ticket, now, random);
    }
    void add_waiting(util::TimePoint bucket, util::TimePoint checked_in) override {
        m_ledger.add_waiting(bucket, checked_in);
        m_ledger.count_arrival(checked_in);
    }
    queue::Ledger counts(util::TimePoint) override { return m_ledger; }

private:
    queue::Ledger m_ledger;
};

// K nodes, each with its replica of the room and a sync cycle like the sync thread's: every
// interval (and just after each minute starts) a push leaves, the store applies it half a round
// trip later, and the answer arrives a round trip after leaving. Requests meanwhile are decided
// on the node's view, as they are in `wr serve`.
class Nodes final : public SimulatedState {
public:
    explicit Nodes(const NodesSpec& spec) : m_spec(spec), m_store_clock(util::TimePoint{}), m_store(m_store_clock), m_routing(spec.seed ^ 0x5eed) {
        state::ReplicaSettings settings;
        settings.sync_interval = spec.sync_interval;
        m_timing.grant_validity_ms = state::grant_validity(spec.sync_interval).count();
        m_timing.node_liveness_ms = state::node_liveness(spec.sync_interval).count();
        for (int i = 0; i < spec.nodes; ++i) {
            Node node;
            node.replica = std::make_unique<state::RoomReplica>(settings);
            node.name = "node-" + std::to_string(i + 1);
            // Nodes sync out of phase, as independent processes do.
            node.next_sync = spec.sync_interval * i / spec.nodes;
            m_nodes.push_back(std::move(node));
        }
        m_shares = spec.shares;
        if (m_shares.empty()) m_shares.assign(static_cast<size_t>(spec.nodes), 1.0);
        double total = 0;
        for (const double share : m_shares) total += share;
        for (double& share : m_shares) share /= total;
    }

    queue::Outcome check_in(const queue::Policy& policy, const std::optional<queue::Ticket>& ticket, util::TimePoint now,
                            util::Random& random) override {
        start(now);
        advance(now);
        return m_nodes[pick()].replica->check_in(policy, ticket, now, random, queue::Arrival::join);
    }

    void add_waiting(util::TimePoint bucket, util::TimePoint checked_in) override {
        m_nodes[pick()].replica->add_waiting_for_simulation(bucket, checked_in);
    }

    queue::Ledger counts(util::TimePoint now) override {
        start(now);
        advance(now);
        state::RoomReplica reader{state::ReplicaSettings{}};
        m_store_clock.set(now);
        const state::RoomReply reply = m_store.exchange("reader", {reader.begin_sync(k_room, now, true)}, m_timing).at(0);
        queue::Ledger ledger;
        for (const queue::LedgerChange& change : reply.changes) ledger.apply(change);
        for (const auto& [minute, seed] : reply.seeds) ledger.apply({queue::LedgerChange::Kind::release_seed, minute, seed, 0});
        return ledger;
    }

    int64_t syncs() const override { return m_syncs; }

private:
    struct Node {
        std::unique_ptr<state::RoomReplica> replica;
        std::string name;
        util::Milliseconds next_sync{};     // from the start
        std::optional<state::RoomPush> push; // on its way
        util::TimePoint sent{};
        std::optional<state::RoomReply> reply; // applied, on its way back
    };

    void start(util::TimePoint now) {
        if (m_started) return;
        m_started = true;
        m_start = now;
    }

    size_t pick() {
        double draw = m_routing.unit();
        for (size_t i = 0; i < m_shares.size(); ++i) {
            if (draw < m_shares[i]) return i;
            draw -= m_shares[i];
        }
        return m_shares.size() - 1;
    }

    util::TimePoint next_event(const Node& node) const {
        if (node.reply) return node.sent + m_spec.latency;
        if (node.push) return node.sent + m_spec.latency / 2;
        return m_start + node.next_sync;
    }

    // Runs every send, apply and answer due by `now`, earliest first.
    void advance(util::TimePoint now) {
        while (true) {
            Node* due = nullptr;
            for (Node& node : m_nodes)
                if (next_event(node) <= now && (!due || next_event(node) < next_event(*due))) due = &node;
            if (!due) return;
            const util::TimePoint at = next_event(*due);
            if (due->reply) {
                due->replica->end_sync(*due->reply, at);
                due->reply.reset();
                due->push.reset();
                ++m_syncs;
                // Next: an interval on, or just after the next minute starts; at once to resync.
                const util::TimePoint minute_edge = queue::minute_start(queue::minute_of(at) + 1) + util::Milliseconds{20};
                util::TimePoint next = std::min(due->sent + m_spec.sync_interval, minute_edge);
                if (due->replica->needs_resync()) next = at;
                due->next_sync = std::max(next, at) - m_start;
            } else if (due->push) {
                m_store_clock.set(at);
                due->reply = m_store.exchange(due->name, {*due->push}, m_timing).at(0);
            } else {
                due->push = due->replica->begin_sync(k_room, at);
                due->sent = at;
            }
        }
    }

    NodesSpec m_spec;
    util::FakeClock m_store_clock;
    state::MemoryStore m_store;
    state::StoreTiming m_timing;
    std::vector<Node> m_nodes;
    std::vector<double> m_shares;
    util::SeededRandom m_routing;
    bool m_started = false;
    util::TimePoint m_start{};
    int64_t m_syncs = 0;
};

} // namespace

std::unique_ptr<SimulatedState> make_simulated_state(const NodesSpec& spec) {
    if (spec.nodes <= 1) return std::make_unique<OneNode>();
    return std::make_unique<Nodes>(spec);
}

} // namespace wr::simulate
