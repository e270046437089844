// Queue-page variables and rendering.
#include <doctest/doctest.h>

#include "page/render.h"
#include "page/variables.h"
#include "support/test_server.h"

using wr::page::QueueView;

namespace {

QueueView fifo_view() {
    QueueView view;
    view.now = wr::test::k_test_start;
    view.last_updated = wr::test::k_test_start;
    view.wait_time_known = true;
    view.wait_time_minutes = 75;
    return view;
}

} // namespace

TEST_CASE("page::json_response carries every cfWaitingRoom field") {
    const nlohmann::json fields = wr::page::json_response(fifo_view())["cfWaitingRoom"];
    for (const char* name : {"inWaitingRoom", "waitTimeKnown", "waitTime", "waitTime25Percentile", "waitTime50Percentile",
                             "waitTime75Percentile", "waitTimeFormatted", "queueIsFull", "queueAll", "lastUpdated",
                             "refreshIntervalSeconds", "queueingMethod", "isFIFOQueue", "isRandomQueue", "isPassthroughQueue",
                             "isRejectQueue", "isEventActive", "isEventPrequeueing", "timeUntilEventStart",
                             "timeUntilEventStartFormatted", "timeUntilEventEnd", "timeUntilEventEndFormatted",
                             "shuffleAtEventStart", "turnstile", "infiniteQueue"}) {
        CAPTURE(name);
        CHECK(fields.contains(name));
    }
    CHECK(fields["waitTime"] == 75);
    CHECK(fields["waitTimeFormatted"] == "1 hour 15 minutes");
    CHECK(fields["lastUpdated"] == "2026-11-22T10:00:00.000Z");
}

TEST_CASE("page::render_template prints booleans as true/false and still tests them in sections") {
    const auto rendered = wr::page::render_template(
        "{{isFIFOQueue}} {{{isRandomQueue}}} {{& queueAll}} {{#waitTimeKnown}}known{{/waitTimeKnown}}"
        "{{^queueIsFull}} open{{/queueIsFull}} {{waitTimeHours}}h{{waitTimeHourMinutes}}",
        fifo_view());
    REQUIRE(rendered);
    CHECK(*rendered == "true false false known open 1h15");
}

TEST_CASE("page::rewrite_boolean_variables follows delimiter changes and leaves other tags alone") {
    CHECK(wr::page::rewrite_boolean_variables("{{=<% %>=}}<% isFIFOQueue %> {{isFIFOQueue}} <%#queueAll%>x<%/queueAll%>") ==
          "{{=<% %>=}}<%isFIFOQueue__text%> {{isFIFOQueue}} <%#queueAll%>x<%/queueAll%>");
    CHECK(wr::page::rewrite_boolean_variables("{{waitTime}} {{! isFIFOQueue }}") == "{{waitTime}} {{! isFIFOQueue }}");
}

TEST_CASE("page::render_template escapes {{x}} and not {{{x}}}") {
    QueueView view = fifo_view();
    view.turnstile_html = "<div class=\"cf-turnstile\"></div>";
    const auto rendered = wr::page::render_template("{{turnstile}}|{{{turnstile}}}", view);
    REQUIRE(rendered);
    CHECK(*rendered == "&lt;div class=&quot;cf-turnstile&quot;&gt;&lt;/div&gt;|<div class=\"cf-turnstile\"></div>");
}
