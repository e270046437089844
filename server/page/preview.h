#pragma once
// The states a template can be previewed in, shared by the API's preview pages and
// `wr templates preview`: a queue with a known wait, a random queue, a full queue, a prequeue, …
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <vector>

#include "page/queue_view.h"
#include "page/variables.h"

namespace wr::page {

struct PreviewOptions {
    bool force_queue = false;       // everyone queued (queueAll): no estimate
    bool queue_is_full = false;
    model::QueueingMethod method = model::QueueingMethod::fifo;
    std::string event = "none";     // none, prequeueing, started
    bool shuffle_at_event_start = false;
    int64_t wait_minutes = 10;
    bool wait_known = true;
    std::string language = "en-US";
    // A real event's times (a room's next event); without them an event starts 15 minutes from
    // now (prequeue) or started 5 minutes ago, and lasts an hour.
    std::optional<util::TimePoint> event_start;
    std::optional<util::TimePoint> event_end;
};

struct PreviewPage {
    QueueView view;
    bool reject = false;       // the reject page, not the queue page
    bool shows_origin = false; // passthrough without a queue: a visitor would see the site
};

PreviewPage preview_page(const PreviewOptions& options, util::TimePoint now);

// Takes the overridden variables that others follow into the options, so the page stays
// consistent: waitTime also sets waitTimeFormatted, waitTimeHours, waitTimeHourMinutes and the
// percentiles; waitTimeKnown, queueIsFull and queueAll switch what they switch. Returns a line
// for each value that cannot be what its variable holds ("waitTime=soon: …").
std::vector<std::string> apply_overrides(const Overrides& overrides, PreviewOptions& options);

// The named states of `wr templates preview --state`: fifo, random, queue-full, queue-all,
// unknown, prequeue, prequeue-shuffle, event, reject, passthrough. nullopt for another name.
std::optional<PreviewOptions> preview_state(std::string_view name);
// Those names, in that order; and the same as one line ("fifo, random, …").
const std::vector<std::string>& preview_states();
std::string preview_state_names();

} // namespace wr::page
