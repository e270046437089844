#pragma once
// What `wr simulate` plays: who arrives when, how they behave, and the room they arrive at.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/enums.h"
#include "model/field_error.h"
#include "model/room.h"
#include "simulate/origin_model.h"

namespace wr::simulate {

using Seconds = std::chrono::duration<double>;

struct EventSpec {
    std::string name = "event";
    std::optional<double> prequeue_start_minutes; // from the start of the simulation
    double start_minutes = 0;
    double end_minutes = 0;
    bool shuffle_at_event_start = false;
    std::optional<model::QueueingMethod> method;
    std::optional<int64_t> total_active_users;
    std::optional<int64_t> new_users_per_minute;
};

struct MethodChange {
    double at_minutes = 0;
    model::QueueingMethod method = model::QueueingMethod::fifo;
};

struct Scenario {
    int64_t users = 10000;
    // uniform:DURATION, burst, poisson:RATE (per minute), launch:RAMP,PEAK,TAIL (arrivals rising
    // over RAMP, steady over PEAK, falling over TAIL, as on a launch day), csv:FILE, or reference:DURATION: the
    // experiment of "Waiting Room: Random Queueing and Custom Web/Mobile Apps"
    // (https://blog.cloudflare.com/waiting-room-random-queueing-and-custom-web-mobile-apps/):
    // arrival times spread over DURATION are written into the users' tickets (their place in
    // line), and everyone then joins at once.
    std::string arrival = "uniform:30m";
    double browse_minutes = 1;             // admitted users keep requesting this long, then leave
    double refresh_seconds = 20;           // how often a browsing user requests a page
    double abandon = 0;                    // chance per minute of waiting that a queued user gives up
    model::QueueingMethod method = model::QueueingMethod::fifo;
    int64_t total_active_users = 200;
    int64_t new_users_per_minute = 200;
    int session_duration = 5;              // minutes
    bool disable_session_renewal = false;
    uint64_t seed = 1;
    std::vector<EventSpec> events;
    std::vector<MethodChange> method_changes;
    double max_minutes = 24 * 60;          // give up after this much virtual time
    // Several edge nodes sharing the room (`--nodes`): the reconcile code of --state redis, with
    // the in-process store, a round trip of sync_latency, requests spread by node_shares.
    int nodes = 1;
    double sync_interval_seconds = 0.25;
    double sync_latency_seconds = 0.002;
    std::vector<double> node_shares;       // empty: even
    // The origin behind the room (workers 0: not modelled): each request of a browsing user is
    // served by it, and its next request follows the answer by about refresh_seconds.
    OriginSpec origin;
    // The room's origin_guard, run on the simulated origin's measurements every control interval.
    model::OriginGuardSettings origin_guard;
};

// Reads a scenario document (the same names as the command's flags, snake_case), applying it
// over `scenario`. Problems name the field.
model::FieldErrors read_scenario(const nlohmann::json& document, Scenario& scenario);
model::FieldErrors validate_scenario(const Scenario& scenario);

// The users' arrival offsets from the start, sorted. Throws std::runtime_error for a CSV that
// cannot be read.
std::vector<double> arrival_seconds(const Scenario& scenario);

// For reference:DURATION, when everyone joins (the end of the span); nullopt for other modes.
std::optional<double> joining_at_seconds(const Scenario& scenario);

// launch:RAMP,PEAK,TAIL, as spans in seconds; nullopt for other arrival modes or a malformed one.
struct LaunchShape {
    double ramp_seconds = 0;
    double peak_seconds = 0;
    double tail_seconds = 0;
};
std::optional<LaunchShape> parse_launch(std::string_view arrival);

// "30m" → 1800, "20s" → 20, "2h" → 7200, "250ms" → 0.25, "90" → 90 (seconds); nullopt when malformed.
std::optional<double> parse_duration_seconds(std::string_view text);

} // namespace wr::simulate
