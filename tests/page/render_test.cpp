// Queue-page variables and rendering.
#include <doctest/doctest.h>

#include "page/compiled_template.h"
#include "page/preview.h"
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

TEST_CASE("page: every variable has its value in every preview state") {
    const std::string all_variables =
        "waitTime={{waitTime}}|waitTimeKnown={{waitTimeKnown}}|waitTimeFormatted={{waitTimeFormatted}}|"
        "waitTimeHours={{waitTimeHours}}|waitTimeHourMinutes={{waitTimeHourMinutes}}|p25={{waitTime25Percentile}}|"
        "p50={{waitTime50Percentile}}|p75={{waitTime75Percentile}}|queueIsFull={{queueIsFull}}|queueAll={{queueAll}}|"
        "refresh={{refreshIntervalSeconds}}|method={{queueingMethod}}|fifo={{isFIFOQueue}}|random={{isRandomQueue}}|"
        "passthrough={{isPassthroughQueue}}|reject={{isRejectQueue}}|event={{isEventActive}}|prequeue={{isEventPrequeueing}}|"
        "start={{timeUntilEventStart}}|startF={{timeUntilEventStartFormatted}}|end={{timeUntilEventEnd}}|"
        "endF={{timeUntilEventEndFormatted}}|shuffle={{shuffleAtEventStart}}|turnstile={{turnstile}}|infinite={{infiniteQueue}}|"
        "lastUpdated={{lastUpdated}}";
    struct Case {
        const char* state;
        const char* expected;
    };
    const Case cases[] = {
        {"fifo", "waitTime=10|waitTimeKnown=true|waitTimeFormatted=10 minutes|waitTimeHours=0|waitTimeHourMinutes=10|p25=0|p50=0|p75=0|"
                 "queueIsFull=false|queueAll=false|refresh=20|method=fifo|fifo=true|random=false|passthrough=false|reject=false|"
                 "event=false|prequeue=false|start=0|startF=unavailable|end=0|endF=unavailable|shuffle=false|turnstile=|infinite=false|"
                 "lastUpdated=2026-11-22T10:00:00.000Z"},
        {"random", "waitTime=10|waitTimeKnown=true|waitTimeFormatted=5 minutes to 15 minutes|waitTimeHours=0|waitTimeHourMinutes=10|"
                   "p25=5|p50=10|p75=15|queueIsFull=false|queueAll=false|refresh=20|method=random|fifo=false|random=true|"
                   "passthrough=false|reject=false|event=false|prequeue=false|start=0|startF=unavailable|end=0|endF=unavailable|"
                   "shuffle=false|turnstile=|infinite=false|lastUpdated=2026-11-22T10:00:00.000Z"},
        {"queue-full", "waitTime=1500|waitTimeKnown=true|waitTimeFormatted=25 hours|waitTimeHours=25|waitTimeHourMinutes=0|p25=0|p50=0|"
                       "p75=0|queueIsFull=true|queueAll=false|refresh=20|method=fifo|fifo=true|random=false|passthrough=false|"
                       "reject=false|event=false|prequeue=false|start=0|startF=unavailable|end=0|endF=unavailable|shuffle=false|"
                       "turnstile=|infinite=false|lastUpdated=2026-11-22T10:00:00.000Z"},
        {"unknown", "waitTime=0|waitTimeKnown=false|waitTimeFormatted=unavailable|waitTimeHours=0|waitTimeHourMinutes=0|p25=0|p50=0|"
                    "p75=0|queueIsFull=false|queueAll=false|refresh=20|method=fifo|fifo=true|random=false|passthrough=false|"
                    "reject=false|event=false|prequeue=false|start=0|startF=unavailable|end=0|endF=unavailable|shuffle=false|"
                    "turnstile=|infinite=false|lastUpdated=2026-11-22T10:00:00.000Z"},
        {"prequeue-shuffle", "waitTime=0|waitTimeKnown=false|waitTimeFormatted=unavailable|waitTimeHours=0|waitTimeHourMinutes=0|p25=0|"
                             "p50=0|p75=0|queueIsFull=false|queueAll=true|refresh=20|method=fifo|fifo=true|random=false|"
                             "passthrough=false|reject=false|event=true|prequeue=true|start=15|startF=15 minutes|end=75|"
                             "endF=1 hour 15 minutes|shuffle=true|turnstile=|infinite=false|lastUpdated=2026-11-22T10:00:00.000Z"},
        {"event", "waitTime=10|waitTimeKnown=true|waitTimeFormatted=10 minutes|waitTimeHours=0|waitTimeHourMinutes=10|p25=0|p50=0|p75=0|"
                  "queueIsFull=false|queueAll=false|refresh=20|method=fifo|fifo=true|random=false|passthrough=false|reject=false|"
                  "event=true|prequeue=false|start=0|startF=0 minutes|end=55|endF=55 minutes|shuffle=false|turnstile=|infinite=false|"
                  "lastUpdated=2026-11-22T10:00:00.000Z"},
        {"reject", "waitTime=10|waitTimeKnown=true|waitTimeFormatted=10 minutes|waitTimeHours=0|waitTimeHourMinutes=10|p25=0|p50=0|p75=0|"
                   "queueIsFull=false|queueAll=false|refresh=0|method=reject|fifo=false|random=false|passthrough=false|reject=true|"
                   "event=false|prequeue=false|start=0|startF=unavailable|end=0|endF=unavailable|shuffle=false|turnstile=|"
                   "infinite=false|lastUpdated=2026-11-22T10:00:00.000Z"},
        {"passthrough", "waitTime=0|waitTimeKnown=false|waitTimeFormatted=unavailable|waitTimeHours=0|waitTimeHourMinutes=0|p25=0|p50=0|"
                        "p75=0|queueIsFull=false|queueAll=true|refresh=20|method=passthrough|fifo=false|random=false|"
                        "passthrough=true|reject=false|event=false|prequeue=false|start=0|startF=unavailable|end=0|"
                        "endF=unavailable|shuffle=false|turnstile=|infinite=false|lastUpdated=2026-11-22T10:00:00.000Z"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.state);
        const auto options = wr::page::preview_state(c.state);
        REQUIRE(options);
        const auto rendered = wr::page::render_template(all_variables, wr::page::preview_page(*options, wr::test::k_test_start).view);
        REQUIRE(rendered);
        CHECK(*rendered == c.expected);
    }
}

TEST_CASE("page: an empty string is a false section and a true inverted section, as in mustache.js") {
    const std::string html = "[{{#turnstile}}<div class=\"challenge\">{{{turnstile}}}</div>{{/turnstile}}"
                             "{{^turnstile}}off{{/turnstile}}|{{turnstile}}]";
    QueueView view = fifo_view();
    CHECK(wr::page::render_template(html, view) == "[off|]");
    view.turnstile_html = "<i>t</i>";
    CHECK(wr::page::render_template(html, view) == "[<div class=\"challenge\"><i>t</i></div>|&lt;i&gt;t&lt;/i&gt;]");
    // An override to the empty string, as `wr templates preview --var name=` and preview URLs give.
    const wr::page::Overrides overrides{{"turnstile", ""}, {"queueingMethod", ""}};
    wr::page::CompiledTemplate compiled(html + "{{#queueingMethod}}method{{/queueingMethod}}{{^queueingMethod}}none{{/queueingMethod}}");
    CHECK(compiled.render(view, &overrides) == "[off|]none");
}

TEST_CASE("page: overrides replace variables, booleans included") {
    const wr::page::Overrides overrides{{"waitTime", "42"}, {"queueIsFull", "true"}};
    wr::page::CompiledTemplate compiled("{{waitTime}} {{queueIsFull}} {{#queueIsFull}}full{{/queueIsFull}}");
    const auto rendered = compiled.render(fifo_view(), &overrides);
    REQUIRE(rendered);
    CHECK(*rendered == "42 true full");
}
