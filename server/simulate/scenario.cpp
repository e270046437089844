// Scenarios for the simulator: reading them and drawing arrivals.
#include "simulate/scenario.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <stdexcept>

#include "model/json_fields.h"
#include "util/random.h"

namespace wr::simulate {

std::optional<double> parse_duration_seconds(std::string_view text) {
    if (text.empty()) return std::nullopt;
    double scale = 1;
    if (text.ends_with("ms")) {
        scale = 0.001;
        text.remove_suffix(2);
    } else switch (text.back()) {
    case 's': scale = 1; text.remove_suffix(1); break;
    case 'm': scale = 60; text.remove_suffix(1); break;
    case 'h': scale = 3600; text.remove_suffix(1); break;
    case 'd': scale = 86400; text.remove_suffix(1); break;
    default: break;
    }
    if (text.empty() || text.find_first_not_of("0123456789.") != std::string_view::npos) return std::nullopt;
    try {
        const double value = std::stod(std::string(text));
        if (!std::isfinite(value) || value < 0) return std::nullopt;
        return value * scale;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<LaunchShape> parse_launch(std::string_view arrival) {
    if (!arrival.starts_with("launch:")) return std::nullopt;
    arrival.remove_prefix(7);
    double spans[3];
    for (int i = 0; i < 3; ++i) {
        const size_t comma = arrival.find(',');
        if ((i < 2) != (comma != std::string_view::npos)) return std::nullopt;
        const auto seconds = parse_duration_seconds(arrival.substr(0, comma));
        if (!seconds) return std::nullopt;
        spans[i] = *seconds;
        if (comma != std::string_view::npos) arrival.remove_prefix(comma + 1);
    }
    if (spans[0] + spans[1] + spans[2] <= 0) return std::nullopt;
    return LaunchShape{spans[0], spans[1], spans[2]};
}

namespace {

void read_duration_minutes(const nlohmann::json& object, const char* key, double& minutes, model::FieldErrors& errors,
                           const std::string& prefix = "") {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return;
    if (it->is_number()) {
        minutes = it->get<double>();
        return;
    }
    if (it->is_string())
        if (const auto seconds = parse_duration_seconds(it->get<std::string>())) {
            minutes = *seconds / 60;
            return;
        }
    errors.push_back({prefix + key, "must be minutes or a duration such as 30m, 90s, 2h"});
}

} // namespace

model::FieldErrors read_scenario(const nlohmann::json& document, Scenario& scenario) {
    model::FieldErrors errors;
    if (!document.is_object()) return {{"", "the scenario must be a JSON object"}};
    model::JsonFields fields(document, model::BodyMode::patch, errors);
    fields.integer("users", scenario.users, scenario.users);
    fields.string("arrival", scenario.arrival, scenario.arrival);
    read_duration_minutes(document, "browse", scenario.browse_minutes, errors);
    double refresh_minutes = scenario.refresh_seconds / 60;
    read_duration_minutes(document, "refresh", refresh_minutes, errors);
    scenario.refresh_seconds = refresh_minutes * 60;
    if (const auto it = document.find("abandon"); it != document.end() && !it->is_null()) {
        if (it->is_number()) scenario.abandon = it->get<double>();
        else errors.push_back({"abandon", "must be a number between 0 and 1"});
    }
    fields.enumeration("method", scenario.method, scenario.method);
    fields.integer("total_active_users", scenario.total_active_users, scenario.total_active_users);
    fields.integer("new_users_per_minute", scenario.new_users_per_minute, scenario.new_users_per_minute);
    fields.integer("session_duration", scenario.session_duration, scenario.session_duration);
    fields.boolean("disable_session_renewal", scenario.disable_session_renewal, scenario.disable_session_renewal);
    int64_t seed = static_cast<int64_t>(scenario.seed);
    fields.integer("seed", seed, seed);
    scenario.seed = static_cast<uint64_t>(seed);
    read_duration_minutes(document, "max_duration", scenario.max_minutes, errors);
    int64_t nodes = scenario.nodes;
    fields.integer("nodes", nodes, nodes);
    scenario.nodes = static_cast<int>(std::clamp<int64_t>(nodes, -1, 100000));
    double interval_minutes = scenario.sync_interval_seconds / 60, latency_minutes = scenario.sync_latency_seconds / 60;
    read_duration_minutes(document, "sync_interval", interval_minutes, errors);
    read_duration_minutes(document, "sync_latency", latency_minutes, errors);
    scenario.sync_interval_seconds = interval_minutes * 60;
    scenario.sync_latency_seconds = latency_minutes * 60;
    if (const auto it = document.find("node_shares"); it != document.end() && !it->is_null()) {
        scenario.node_shares.clear();
        if (!it->is_array()) errors.push_back({"node_shares", "must be an array of numbers, such as [90, 5, 5]"});
        else
            for (const nlohmann::json& share : *it) {
                if (share.is_number()) scenario.node_shares.push_back(share.get<double>());
                else errors.push_back({"node_shares", "must be an array of numbers, such as [90, 5, 5]"});
            }
    }

    if (const auto it = document.find("origin"); it != document.end() && !it->is_null()) {
        if (!it->is_object()) {
            errors.push_back({"origin", "must be an object such as {\"workers\": 32, \"service_ms\": 100}"});
        } else {
            model::JsonFields origin(*it, model::BodyMode::patch, errors, "origin.");
            int64_t workers = scenario.origin.workers;
            origin.integer("workers", workers, workers);
            scenario.origin.workers = static_cast<int>(std::clamp<int64_t>(workers, -1, 1'000'000));
            for (const auto& [key, value] : {std::pair{"service_ms", &scenario.origin.service_ms}, std::pair{"timeout_ms", &scenario.origin.timeout_ms}})
                if (const auto field = it->find(key); field != it->end() && !field->is_null()) {
                    if (field->is_number()) *value = field->get<double>();
                    else errors.push_back({std::string("origin.") + key, "must be a number of milliseconds"});
                }
            if (const auto changes = it->find("changes"); changes != it->end() && !changes->is_null()) {
                if (!changes->is_array()) errors.push_back({"origin.changes", "must be an array of {at, workers}"});
                else
                    for (size_t i = 0; i < changes->size(); ++i) {
                        const std::string prefix = "origin.changes[" + std::to_string(i) + "].";
                        WorkersChange change;
                        read_duration_minutes((*changes)[i], "at", change.at_minutes, errors, prefix);
                        model::JsonFields change_fields((*changes)[i], model::BodyMode::patch, errors, prefix);
                        int64_t count = 1;
                        change_fields.integer("workers", count, count);
                        change.workers = static_cast<int>(std::clamp<int64_t>(count, -1, 1'000'000));
                        scenario.origin.changes.push_back(change);
                    }
            }
        }
    }
    if (const auto it = document.find("origin_guard"); it != document.end() && !it->is_null()) {
        if (!it->is_object()) {
            errors.push_back({"origin_guard", "must be an object such as {\"enabled\": true, \"target_ttfb_ms\": 500}"});
        } else {
            model::OriginGuardSettings& guard = scenario.origin_guard;
            model::JsonFields fields_of_guard(*it, model::BodyMode::patch, errors, "origin_guard.");
            fields_of_guard.boolean("enabled", guard.enabled, guard.enabled);
            int64_t target = guard.target_ttfb_ms;
            fields_of_guard.integer("target_ttfb_ms", target, target);
            guard.target_ttfb_ms = static_cast<int>(std::clamp<int64_t>(target, -1, 1'000'000));
            fields_of_guard.integer("min_new_users_per_minute", guard.min_new_users_per_minute, guard.min_new_users_per_minute);
            if (const auto rate = it->find("max_error_rate"); rate != it->end() && !rate->is_null()) {
                if (rate->is_number()) guard.max_error_rate = rate->get<double>();
                else errors.push_back({"origin_guard.max_error_rate", "must be a number between 0 and 1"});
            }
        }
    }

    if (const auto it = document.find("events"); it != document.end() && !it->is_null()) {
        if (!it->is_array()) {
            errors.push_back({"events", "must be an array"});
        } else {
            for (size_t i = 0; i < it->size(); ++i) {
                const nlohmann::json& item = (*it)[i];
                const std::string prefix = "events[" + std::to_string(i) + "].";
                if (!item.is_object()) {
                    errors.push_back({"events[" + std::to_string(i) + "]", "must be an object"});
                    continue;
                }
                EventSpec event;
                model::JsonFields event_fields(item, model::BodyMode::patch, errors, prefix);
                event_fields.string("name", event.name, event.name);
                double prequeue = -1;
                read_duration_minutes(item, "prequeue_start", prequeue, errors, prefix);
                if (prequeue >= 0) event.prequeue_start_minutes = prequeue;
                read_duration_minutes(item, "start", event.start_minutes, errors, prefix);
                read_duration_minutes(item, "end", event.end_minutes, errors, prefix);
                event_fields.boolean("shuffle_at_event_start", event.shuffle_at_event_start, false);
                event_fields.optional_enumeration("method", event.method);
                event_fields.optional_integer("total_active_users", event.total_active_users);
                event_fields.optional_integer("new_users_per_minute", event.new_users_per_minute);
                scenario.events.push_back(std::move(event));
            }
        }
    }
    if (const auto it = document.find("method_changes"); it != document.end() && !it->is_null()) {
        if (!it->is_array()) {
            errors.push_back({"method_changes", "must be an array of {at, method}"});
        } else {
            for (size_t i = 0; i < it->size(); ++i) {
                const std::string prefix = "method_changes[" + std::to_string(i) + "].";
                MethodChange change;
                read_duration_minutes((*it)[i], "at", change.at_minutes, errors, prefix);
                model::JsonFields change_fields((*it)[i], model::BodyMode::patch, errors, prefix);
                change_fields.enumeration("method", change.method, change.method);
                scenario.method_changes.push_back(change);
            }
        }
    }
    return errors;
}

model::FieldErrors validate_scenario(const Scenario& scenario) {
    model::FieldErrors errors;
    if (scenario.users < 1 || scenario.users > 10'000'000) errors.push_back({"users", "must be between 1 and 10000000"});
    const std::string& arrival = scenario.arrival;
    const bool known = arrival == "burst" || arrival.starts_with("csv:") ||
                       (arrival.starts_with("uniform:") && parse_duration_seconds(arrival.substr(8))) ||
                       (arrival.starts_with("reference:") && parse_duration_seconds(arrival.substr(10))) ||
                       (arrival.starts_with("poisson:") && parse_duration_seconds(arrival.substr(8)).value_or(0) > 0) ||
                       parse_launch(arrival);
    if (!known)
        errors.push_back({"arrival", "must be uniform:DURATION (uniform:30m), burst, poisson:RATE (users per minute), "
                                     "launch:RAMP,PEAK,TAIL (launch:5m,10m,15m), csv:FILE or reference:DURATION"});
    if (scenario.browse_minutes < 0) errors.push_back({"browse", "must not be negative"});
    if (scenario.refresh_seconds < 1) errors.push_back({"refresh", "must be at least 1 second"});
    if (scenario.abandon < 0 || scenario.abandon > 1) errors.push_back({"abandon", "must be between 0 and 1"});
    if (scenario.total_active_users < 1) errors.push_back({"total_active_users", "must be positive"});
    if (scenario.new_users_per_minute < 1) errors.push_back({"new_users_per_minute", "must be positive"});
    if (scenario.session_duration < 1 || scenario.session_duration > 30) errors.push_back({"session_duration", "must be between 1 and 30 minutes"});
    if (scenario.nodes < 1 || scenario.nodes > 100) errors.push_back({"nodes", "must be between 1 and 100"});
    if (scenario.sync_interval_seconds < 0.01 || scenario.sync_interval_seconds > 10)
        errors.push_back({"sync_interval", "must be between 10ms and 10s"});
    if (scenario.sync_latency_seconds < 0 || scenario.sync_latency_seconds >= scenario.sync_interval_seconds)
        errors.push_back({"sync_latency", "must be at least 0 and shorter than sync_interval"});
    if (!scenario.node_shares.empty()) {
        if (static_cast<int>(scenario.node_shares.size()) != scenario.nodes)
            errors.push_back({"node_shares", "must give one share per node (" + std::to_string(scenario.nodes) + ")"});
        double total = 0;
        for (const double share : scenario.node_shares) {
            if (share < 0) errors.push_back({"node_shares", "must not be negative"});
            total += share;
        }
        if (total <= 0) errors.push_back({"node_shares", "must not all be 0"});
    }
    const OriginSpec& origin = scenario.origin;
    if (origin.workers < 0 || origin.workers > 100000) errors.push_back({"origin.workers", "must be between 0 (no origin) and 100000"});
    if (origin.service_ms < 0.1 || origin.service_ms > 600000) errors.push_back({"origin.service_ms", "must be between 0.1 and 600000 ms"});
    if (origin.timeout_ms < 1 || origin.timeout_ms > 600000) errors.push_back({"origin.timeout_ms", "must be between 1 and 600000 ms"});
    for (size_t i = 0; i < origin.changes.size(); ++i) {
        if (origin.changes[i].workers < 1 || origin.changes[i].workers > 100000)
            errors.push_back({"origin.changes[" + std::to_string(i) + "].workers", "must be between 1 and 100000"});
        if (origin.workers == 0) errors.push_back({"origin.changes[" + std::to_string(i) + "]", "needs an origin (origin.workers)"});
    }
    const model::OriginGuardSettings& guard = scenario.origin_guard;
    if (guard.target_ttfb_ms < 50 || guard.target_ttfb_ms > 60000) errors.push_back({"origin_guard.target_ttfb_ms", "must be between 50 and 60000"});
    if (guard.max_error_rate < 0 || guard.max_error_rate > 1) errors.push_back({"origin_guard.max_error_rate", "must be between 0 and 1"});
    if (guard.min_new_users_per_minute < 0) errors.push_back({"origin_guard.min_new_users_per_minute", "must not be negative"});
    if (guard.enabled && origin.workers == 0)
        errors.push_back({"origin_guard", "needs an origin to measure: give origin.workers (--origin-workers)"});
    if (origin.workers > 0 && scenario.arrival.starts_with("reference:"))
        errors.push_back({"origin", "is not modelled with reference: arrivals"});
    for (size_t i = 0; i < scenario.events.size(); ++i) {
        const EventSpec& event = scenario.events[i];
        const std::string prefix = "events[" + std::to_string(i) + "].";
        if (event.end_minutes <= event.start_minutes) errors.push_back({prefix + "end", "must come after start"});
        if (event.prequeue_start_minutes && *event.prequeue_start_minutes >= event.start_minutes)
            errors.push_back({prefix + "prequeue_start", "must come before start"});
        if (event.shuffle_at_event_start && !event.prequeue_start_minutes)
            errors.push_back({prefix + "shuffle_at_event_start", "requires prequeue_start"});
        if (event.total_active_users.has_value() != event.new_users_per_minute.has_value())
            errors.push_back({prefix + "total_active_users", "set together with new_users_per_minute"});
    }
    return errors;
}

std::optional<double> joining_at_seconds(const Scenario& scenario) {
    if (!scenario.arrival.starts_with("reference:")) return std::nullopt;
    return parse_duration_seconds(scenario.arrival.substr(10));
}

std::vector<double> arrival_seconds(const Scenario& scenario) {
    util::SeededRandom random(scenario.seed ^ 0xa77177a1ULL);
    std::vector<double> arrivals;
    const std::string& mode = scenario.arrival;
    if (mode.starts_with("csv:")) {
        std::ifstream in(mode.substr(4));
        if (!in) throw std::runtime_error("cannot read " + mode.substr(4));
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            const auto seconds = parse_duration_seconds(line.substr(0, line.find(',')));
            if (!seconds) throw std::runtime_error(mode.substr(4) + ": not an offset in seconds: " + line);
            arrivals.push_back(*seconds);
        }
    } else if (mode == "burst") {
        // Everyone within the first second, as a launch link shared at once.
        for (int64_t i = 0; i < scenario.users; ++i) arrivals.push_back(random.unit());
    } else if (mode.starts_with("uniform:") || mode.starts_with("reference:")) {
        const double span = parse_duration_seconds(mode.substr(mode.find(':') + 1)).value_or(0);
        for (int64_t i = 0; i < scenario.users; ++i) arrivals.push_back(random.unit() * span);
    } else if (const auto launch = parse_launch(mode)) {
        // Inverse of the trapezoid's cumulative share: rising over ramp, flat over peak, falling over tail.
        const double ramp = launch->ramp_seconds, peak = launch->peak_seconds, tail = launch->tail_seconds;
        const double area = ramp / 2 + peak + tail / 2; // at a height of 1
        for (int64_t i = 0; i < scenario.users; ++i) {
            const double share = random.unit() * area;
            if (share < ramp / 2) arrivals.push_back(std::sqrt(2 * share * ramp));
            else if (share < ramp / 2 + peak) arrivals.push_back(ramp + share - ramp / 2);
            else arrivals.push_back(ramp + peak + tail - std::sqrt(2 * (area - share) * tail));
        }
    } else if (mode.starts_with("poisson:")) {
        const double per_minute = parse_duration_seconds(mode.substr(8)).value_or(1);
        double at = 0;
        for (int64_t i = 0; i < scenario.users; ++i) {
            at += -std::log(1 - random.unit()) * 60.0 / per_minute;
            arrivals.push_back(at);
        }
    }
    std::sort(arrivals.begin(), arrivals.end());
    return arrivals;
}

} // namespace wr::simulate
