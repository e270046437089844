// Preview states: overridden variables carry the ones that follow them, and real event times.
#include <doctest/doctest.h>

#include "page/preview.h"
#include "page/variables.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using wr::page::PreviewOptions;

namespace {

nlohmann::json variables_of(const PreviewOptions& options) {
    return wr::page::json_response(wr::page::preview_page(options, wr::test::k_test_start).view)["cfWaitingRoom"];
}

} // namespace

TEST_CASE("page::apply_overrides takes waitTime into the options, so waitTimeFormatted and the hours follow") {
    PreviewOptions options = *wr::page::preview_state("unknown");
    CHECK(wr::page::apply_overrides({{"waitTime", "75"}}, options).empty());
    const nlohmann::json variables = variables_of(options);
    CHECK(variables["waitTimeKnown"] == true);
    CHECK(variables["waitTime"] == 75);
    CHECK(variables["waitTimeFormatted"] == "1 hour 15 minutes");
    CHECK(variables["waitTimeHours"] == 1);
    CHECK(variables["waitTimeHourMinutes"] == 15);

    PreviewOptions random = *wr::page::preview_state("random");
    CHECK(wr::page::apply_overrides({{"waitTime", "20"}, {"queueIsFull", "true"}}, random).empty());
    CHECK(variables_of(random)["waitTimeFormatted"] == "10 minutes to 30 minutes");
    CHECK(variables_of(random)["queueIsFull"] == true);

    PreviewOptions paused = *wr::page::preview_state("fifo");
    CHECK(wr::page::apply_overrides({{"queueAll", "true"}}, paused).empty());
    CHECK(variables_of(paused)["waitTimeKnown"] == false);

    PreviewOptions bad = *wr::page::preview_state("fifo");
    CHECK(wr::page::apply_overrides({{"waitTime", "soon"}, {"queueAll", "yes"}}, bad) ==
          std::vector<std::string>{"waitTime=soon: waitTime is a whole number of minutes, such as 42", "queueAll=yes: queueAll is true or false"});
}

TEST_CASE("page::preview_page shows a real event's times when it has them") {
    PreviewOptions options = *wr::page::preview_state("prequeue");
    CHECK(variables_of(options)["timeUntilEventStart"] == 15); // made up: 15 minutes from now
    options.event_start = wr::test::k_test_start + 2h + 30s;
    options.event_end = wr::test::k_test_start + 5h;
    const nlohmann::json variables = variables_of(options);
    CHECK(variables["isEventPrequeueing"] == true);
    CHECK(variables["timeUntilEventStart"] == 121);
    CHECK(variables["timeUntilEventEnd"] == 300);
}
