// Computes the values of every queue-page variable from a QueueView.
#include "page/variables.h"

#include "page/translations.h"
#include "util/time_format.h"

namespace wr::page {
namespace {

using nlohmann::json;

int64_t minutes_until(util::TimePoint from, std::optional<util::TimePoint> to) {
    if (!to || *to <= from) return 0;
    // Round up: "starts in 1 minute" until it has started.
    return std::chrono::ceil<std::chrono::minutes>(*to - from).count();
}

// The facts once, as JSON; the template data is derived from it so the two never disagree.
json variables(const QueueView& view) {
    const bool random = view.queueing_method == model::QueueingMethod::random;
    const bool reject = view.queueing_method == model::QueueingMethod::reject;
    const bool known = view.wait_time_known && !view.queue_all;
    const int64_t wait = known ? view.wait_time_minutes : 0;
    std::string formatted = unavailable_text(view.language);
    if (known)
        formatted = random && view.wait_time_p25_minutes != view.wait_time_p75_minutes
                        ? format_minute_range(view.wait_time_p25_minutes, view.wait_time_p75_minutes, view.language)
                        : format_minutes(wait, view.language);
    const int64_t until_start = view.event_active ? minutes_until(view.now, view.event_start) : 0;
    const int64_t until_end = view.event_active ? minutes_until(view.now, view.event_end) : 0;
    return {
        {"inWaitingRoom", true},
        {"waitTimeKnown", known},
        {"waitTimeFromLimits", known && view.wait_time_from_limits},
        {"waitTime", wait},
        {"waitTimeHours", wait / 60},
        {"waitTimeHourMinutes", wait % 60},
        {"waitTime25Percentile", known && random ? view.wait_time_p25_minutes : 0},
        {"waitTime50Percentile", known && random ? view.wait_time_p50_minutes : 0},
        {"waitTime75Percentile", known && random ? view.wait_time_p75_minutes : 0},
        {"waitTimeFormatted", formatted},
        {"queueIsFull", view.queue_is_full},
        {"queueAll", view.queue_all},
        // To the second, as the cookie keeps it.
        {"lastUpdated", util::format_iso8601(std::chrono::floor<std::chrono::seconds>(view.last_updated))},
        {"refreshIntervalSeconds", reject && !view.queue_all ? 0 : view.refresh_interval_seconds},
        {"queueingMethod", std::string(model::to_string(view.queueing_method))},
        {"isFIFOQueue", view.queueing_method == model::QueueingMethod::fifo},
        {"isRandomQueue", random},
        {"isPassthroughQueue", view.queueing_method == model::QueueingMethod::passthrough},
        {"isRejectQueue", reject},
        {"isEventActive", view.event_active},
        {"isEventPrequeueing", view.event_prequeueing},
        {"timeUntilEventStart", until_start},
        {"timeUntilEventStartFormatted", view.event_active ? format_minutes(until_start, view.language) : unavailable_text(view.language)},
        {"timeUntilEventEnd", until_end},
        {"timeUntilEventEndFormatted", view.event_active ? format_minutes(until_end, view.language) : unavailable_text(view.language)},
        {"shuffleAtEventStart", view.event_active && view.shuffle_at_event_start},
        {"turnstile", view.turnstile_html},
        {"infiniteQueue", view.infinite_queue},
    };
}

} // namespace

const std::vector<std::string_view>& boolean_variable_names() {
    static const std::vector<std::string_view> k_names = {
        "inWaitingRoom", "waitTimeKnown", "waitTimeFromLimits", "queueIsFull", "queueAll", "isFIFOQueue", "isRandomQueue",
        "isPassthroughQueue", "isRejectQueue", "isEventActive", "isEventPrequeueing", "shuffleAtEventStart",
        "infiniteQueue"};
    return k_names;
}

namespace {

// mustache.js treats an empty string as a false section (and an empty list, which kainjow
// already does); kainjow treats any string as true. A false value prints nothing in {{name}},
// so the empty string becomes false and the page reads the same as under mustache.js.
void set_text(kainjow::mustache::data& data, const std::string& name, const std::string& value) {
    if (value.empty()) data.set(name, kainjow::mustache::data::type::bool_false);
    else data.set(name, value);
}

} // namespace

kainjow::mustache::data template_data(const QueueView& view, const Overrides* overrides) {
    kainjow::mustache::data data{kainjow::mustache::data::type::object};
    const json values = variables(view);
    for (const auto& [name, value] : values.items()) {
        if (value.is_boolean()) {
            data.set(name, value.get<bool>() ? kainjow::mustache::data::type::bool_true : kainjow::mustache::data::type::bool_false);
            // Booleans also render as text; see render.cpp for how {{name}} reaches this.
            data.set(name + "__text", value.get<bool>() ? "true" : "false");
        } else if (value.is_number()) {
            data.set(name, std::to_string(value.get<int64_t>()));
        } else {
            set_text(data, name, value.get<std::string>());
        }
    }
    if (overrides) {
        for (const auto& [name, value] : *overrides) {
            if (value == "true" || value == "false") {
                data.set(name, value == "true" ? kainjow::mustache::data::type::bool_true : kainjow::mustache::data::type::bool_false);
                data.set(name + "__text", value);
            } else {
                set_text(data, name, value);
            }
        }
    }
    return data;
}

json json_response(const QueueView& view) { return {{"cfWaitingRoom", variables(view)}}; }

} // namespace wr::page
