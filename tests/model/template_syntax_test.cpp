// Whether a custom page parses, and where it does not: the same answers, with the same lines and
// columns, whatever runs of blanks the page holds between its tags.
#include <doctest/doctest.h>

#include <algorithm>
#include <kainjow/mustache.hpp>
#include <string>

#include "model/template_syntax.h"

using wr::model::template_syntax_error;

TEST_CASE("model::template_syntax_error: errors keep their line and column across runs of blanks before them") {
    CHECK(template_syntax_error("<p>\n\n    \t  {{#queueIsFull}}\n   full\n") == "Unclosed section \"queueIsFull\" at line 3, column 8");
    CHECK(template_syntax_error("a    b\r\n\r\n      {{waitTime") == "Unclosed tag at line 3, column 7");
    CHECK(template_syntax_error("      {{/a}}") == "Unopened section \"a\" at line 1, column 7");
    CHECK(template_syntax_error("x  {{#a}}   \n\n  {{/b}}  ") == "Unclosed section \"a\" at line 1, column 4");
    // Blanks inside tags are the library's to judge, as before.
    CHECK(template_syntax_error("{{#  a  }}  \n  {{/a}}") == std::nullopt);
    CHECK(template_syntax_error("{{{  waitTime  }}}     {{ waitTime }}") == std::nullopt);
}

TEST_CASE("model::template_syntax_error: answers as the library does on the page itself") {
    // The oracle: the library's own verdict on the uncut page.
    for (const std::string page : {"  <p>  {{#a}}  </p>\n\n  {{/a}}  ", "{{#a}}\n    {{#b}}\n  {{/a}}\n{{/b}}", "\t\t{{!  a comment  }}\n\n  {{x}}",
                                   "{{^a}}    {{/a}}    {{&y}}    {{{z}}}", "<pre>\n\n\n</pre>{{#list}}  {{.}}  {{/list}}",
                                   "{{=<% %>=}}  <%#a%>   <%/a%>  ", "{{=<% %>=}}  <%#a%>   ", "   {{", "{{a}}}   {{b}}", "}}  {{"}) {
        CAPTURE(page);
        const kainjow::mustache::mustache parsed{page};
        CHECK(template_syntax_error(page).has_value() == !parsed.is_valid());
    }
}

TEST_CASE("model::template_syntax_error: a page of the largest size a room takes, mostly indentation, parses") {
    std::string page = "<!doctype html><title>Sale</title>\n";
    while (page.size() < 1000 * 1000) page += "        <p>{{waitTime}} minutes</p>\n            \t\n";
    const auto lines = std::count(page.begin(), page.end(), '\n');
    page += "{{#queueIsFull}}";
    CHECK(template_syntax_error(page) == "Unclosed section \"queueIsFull\" at line " + std::to_string(lines + 1) + ", column 1");
}
