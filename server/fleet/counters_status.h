#pragma once
// Live figures straight from a state::Counters, with each room's policy from a ConfigSource: how
// a control node on a shared store (Redis) reports the whole room without an edge of its own.
#include "analytics/collector.h"
#include "model/live_status.h"
#include "edge/config_source.h"
#include "state/counters.h"

namespace wr::fleet {

class CountersStatus final : public model::LiveStatus, public analytics::Sampler {
public:
    CountersStatus(const edge::ConfigSource& config, state::Counters& counters) : m_config(config), m_counters(counters) {}

    model::LiveFigures figures(const std::string& room_id, util::TimePoint now) const override;
    std::vector<analytics::RoomSample> sample(util::TimePoint now) override;

private:
    const edge::ConfigSource& m_config;
    state::Counters& m_counters;
};

} // namespace wr::fleet
