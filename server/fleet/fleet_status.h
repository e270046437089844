#pragma once
// A room as a whole, on the node that answers the status API (control, or all): what every node
// last reported, combined. Nodes with their own in-memory counts are separate parts of the room,
// so their figures add up; nodes on a shared store (Redis) each see the whole room, so the latest
// of their figures counts once. A node that has not reported for k_report_fresh_for is listed as
// stale and left out. Also the analytics collector's sampler there, so the stored minutes show
// the whole room too.
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analytics/collector.h"
#include "model/live_status.h"
#include "fleet/report_wire.h"
#include "state/counters.h"

namespace wr::fleet {

// A few push intervals, so one lost push does not drop a node from the figures.
inline constexpr std::chrono::seconds k_report_fresh_for{10};
// A node that stopped reporting is still listed (as stale) this long, then forgotten.
inline constexpr std::chrono::hours k_report_listed_for{1};

// One node's last word, as the combination sees it.
struct NodeView {
    std::string node;
    std::string role;
    state::Health health;
    util::TimePoint taken{};
    bool fresh = true;
    std::optional<analytics::RoomSample> room; // its figures for the room in question, if it has the room
};

struct Combined {
    model::LiveFigures figures;
    std::vector<model::NodeStatus> nodes;
};

// The whole room from each node's view of it (pure).
Combined combine(const std::vector<NodeView>& views);

// A node inside this process, asked at the moment instead of pushing: the local edge on a node
// of role all, or the shared counters of a control node.
struct LocalNode {
    std::string node;
    std::string role;
    const model::LiveStatus* live = nullptr;
    analytics::Sampler* sampler = nullptr;
    const state::Counters* counters = nullptr; // its health
};

class FleetStatus final : public model::LiveStatus, public analytics::Sampler {
public:
    explicit FleetStatus(std::optional<LocalNode> local = std::nullopt);

    // An edge's report, as received at `received` (by this node's clock).
    void record(NodeReport report, util::TimePoint received);

    model::LiveFigures figures(const std::string& room_id, util::TimePoint now) const override;
    std::vector<model::NodeStatus> nodes(const std::string& room_id, util::TimePoint now) const override;
    std::vector<analytics::RoomSample> sample(util::TimePoint now) override;

private:
    struct Received {
        NodeReport report;
        util::TimePoint at{};
        std::unordered_map<std::string, size_t> rooms; // room id → its entry in report.rooms
    };
    std::vector<NodeView> views(const std::string& room_id, util::TimePoint now) const;

    std::optional<LocalNode> m_local;
    mutable std::mutex m_mutex; // guards m_reports; never held while asking the local node
    std::map<std::string, Received> m_reports;
};

} // namespace wr::fleet
