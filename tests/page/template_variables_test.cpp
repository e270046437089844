// What `wr templates preview` warns of: variables a template uses that wr never sets.
#include <doctest/doctest.h>

#include <algorithm>

#include "page/template_variables.h"

using wr::page::template_variables;
using Names = std::vector<std::string>;

TEST_CASE("page::template_variables lists each variable a template refers to, once, in order") {
    CHECK(template_variables("<p>{{waitTime}} {{{turnstile}}} {{& waitTimeFormatted }}</p>") ==
          Names{"waitTime", "turnstile", "waitTimeFormatted"});
    CHECK(template_variables("{{#waitTimeKnown}}{{waitTime}}{{/waitTimeKnown}}{{^waitTimeKnown}}?{{/waitTimeKnown}}{{waitTime}}") ==
          Names{"waitTimeKnown", "waitTime"});
    CHECK(template_variables("{{! a comment }}{{> partial}}{{noSuchVar}}{{a.b}}{{#list}}{{.}}{{/list}}") ==
          Names{"noSuchVar", "a", "list"});
    CHECK(template_variables("{{waitTime}}{{=<% %>=}}<% hidden %>") == Names{"waitTime"}); // read up to new delimiters
    CHECK(template_variables("no tags, and {{ an unclosed one").empty());
}

TEST_CASE("page::queue_page_variables has every cfWaitingRoom field") {
    const Names& known = wr::page::queue_page_variables();
    for (const char* name : {"waitTime", "waitTimeKnown", "waitTimeFormatted", "waitTimeFromLimits", "queueAll", "turnstile",
                             "timeUntilEventStartFormatted", "isRandomQueue", "refreshIntervalSeconds"})
        CHECK(std::find(known.begin(), known.end(), name) != known.end());
    CHECK(std::find(known.begin(), known.end(), "noSuchVar") == known.end());
}
