// Builds the views of preview states.
#include "page/preview.h"

#include <optional>

#include "util/parse_number.h"

namespace wr::page {

PreviewPage preview_page(const PreviewOptions& options, util::TimePoint now) {
    PreviewPage page;
    QueueView& view = page.view;
    view.now = now;
    view.last_updated = now;
    view.language = options.language;
    view.queueing_method = options.method;
    view.queue_is_full = options.queue_is_full;
    view.event_active = options.event != "none";
    view.event_prequeueing = options.event == "prequeueing";
    if (view.event_prequeueing) {
        view.event_start = options.event_start.value_or(now + std::chrono::minutes{15});
        view.event_end = options.event_end.value_or(*view.event_start + std::chrono::hours{1});
    } else if (options.event == "started") {
        view.event_start = options.event_start.value_or(now - std::chrono::minutes{5});
        view.event_end = options.event_end.value_or(now + std::chrono::minutes{55});
    }
    view.shuffle_at_event_start = view.event_active && options.shuffle_at_event_start;
    view.queue_all = options.force_queue || view.event_prequeueing;
    view.wait_time_known = options.wait_known && !view.queue_all;
    view.wait_time_minutes = options.wait_minutes;
    if (options.method == model::QueueingMethod::random) {
        view.wait_time_p25_minutes = options.wait_minutes / 2;
        view.wait_time_p50_minutes = options.wait_minutes;
        view.wait_time_p75_minutes = options.wait_minutes + options.wait_minutes / 2;
    }
    page.reject = options.method == model::QueueingMethod::reject && !view.queue_all;
    page.shows_origin = options.method == model::QueueingMethod::passthrough && !view.queue_all;
    return page;
}

std::vector<std::string> apply_overrides(const Overrides& overrides, PreviewOptions& options) {
    std::vector<std::string> problems;
    const auto flag = [&](const std::string& name, bool& target) {
        const auto it = overrides.find(name);
        if (it == overrides.end()) return;
        if (it->second == "true" || it->second == "false")
            target = it->second == "true";
        else
            problems.push_back(name + "=" + it->second + ": " + name + " is true or false");
    };
    if (const auto it = overrides.find("waitTime"); it != overrides.end()) {
        const std::string& text = it->second;
        const std::optional<int64_t> minutes = util::parse_number<int64_t>(text);
        if (!minutes || *minutes < 0) {
            problems.push_back("waitTime=" + text + ": waitTime is a whole number of minutes, such as 42");
        } else {
            options.wait_minutes = *minutes;
            options.wait_known = true;
        }
    }
    flag("waitTimeKnown", options.wait_known);
    flag("queueIsFull", options.queue_is_full);
    flag("queueAll", options.force_queue);
    return problems;
}

std::optional<PreviewOptions> preview_state(std::string_view name) {
    PreviewOptions options;
    if (name == "fifo") return options;
    if (name == "random") {
        options.method = model::QueueingMethod::random;
    } else if (name == "queue-full") {
        options.queue_is_full = true;
        options.wait_minutes = 1500;
    } else if (name == "queue-all") {
        options.force_queue = true;
    } else if (name == "unknown") {
        options.wait_known = false;
    } else if (name == "prequeue") {
        options.event = "prequeueing";
    } else if (name == "prequeue-shuffle") {
        options.event = "prequeueing";
        options.shuffle_at_event_start = true;
    } else if (name == "event") {
        options.event = "started";
    } else if (name == "reject") {
        options.method = model::QueueingMethod::reject;
    } else if (name == "passthrough") {
        options.method = model::QueueingMethod::passthrough;
        options.force_queue = true; // a passthrough room shows its page only while everyone waits
    } else {
        return std::nullopt;
    }
    return options;
}

const std::vector<std::string>& preview_states() {
    static const std::vector<std::string> names{"fifo",     "random",           "queue-full", "queue-all", "unknown",
                                                "prequeue", "prequeue-shuffle", "event",      "reject",    "passthrough"};
    return names;
}

std::string preview_state_names() {
    std::string line;
    for (const std::string& name : preview_states()) line += (line.empty() ? "" : ", ") + name;
    return line;
}

} // namespace wr::page
