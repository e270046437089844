// Folding a template's text out of the Mustache library's way: the page renders byte for byte as
// the unfolded template does (the library itself is the oracle), and a page of blanks folds to a
// few tags.
#include <doctest/doctest.h>

#include <kainjow/mustache.hpp>
#include <random>
#include <vector>

#include "model/template_text.h"
#include "page/compiled_template.h"
#include "page/render.h"
#include "page/variables.h"
#include "support/test_server.h"
#include "util/embedded_files.h"

namespace {

using kainjow::mustache::data;
using kainjow::mustache::mustache;

// Variables that exercise every kind of section: true, false, an object, lists of objects and
// of strings, an empty list.
data sample_data() {
    data out;
    out.set("name", "Ada & Bob");
    out.set("yes", data(data::type::bool_true));
    out.set("no", data(data::type::bool_false));
    data person;
    person.set("name", "Grace");
    out.set("person", person);
    data people(data::type::list);
    for (const char* name : {"Alan", "Edsger"}) {
        data each;
        each.set("name", name);
        people.push_back(each);
    }
    out.set("people", people);
    data words(data::type::list);
    for (const char* word : {"one", " two "}) words.push_back(data(std::string(word)));
    out.set("words", words);
    out.set("none", data(data::type::list));
    return out;
}

std::string unfolded_render(const std::string& html, const data& variables) {
    mustache library(html);
    REQUIRE_MESSAGE(library.is_valid(), library.error_message());
    return library.render(variables);
}

std::string folded_render(const std::string& html, const data& variables) {
    const wr::model::FoldedTemplate folded = wr::model::fold_text(html);
    data texts;
    for (size_t i = 0; i < folded.texts.size(); ++i) texts.set(wr::model::placeholder_name(i), folded.texts[i]);
    mustache library(folded.html);
    REQUIRE_MESSAGE(library.is_valid(), library.error_message());
    kainjow::mustache::context<std::string> context(&texts);
    context.push(&variables);
    return library.render(context);
}

// A random template: text, line ends of every kind, blanks, variables, comments, and sections
// (standalone on their lines or not), nested and balanced.
std::string random_template(std::mt19937& random) {
    static const std::vector<std::string> pieces = {
        " ", "  ", "\t", "\n", "\n", "\r\n", "\r", "x", "word ", "<p>", "{{name}}", "{{{name}}}", "{{& name}}", "{{! a\ncomment }}",
        "{{.}}", "{{missing}}", "} {", "{ ", "  \n  "};
    static const std::vector<std::string> sections = {"yes", "no", "person", "people", "words", "none", "missing"};
    std::string out;
    std::vector<std::string> open;
    const int length = std::uniform_int_distribution<int>(0, 40)(random);
    for (int i = 0; i < length; ++i) {
        const int roll = std::uniform_int_distribution<int>(0, 9)(random);
        if (roll == 0 && open.size() < 3) {
            const std::string& name = sections[std::uniform_int_distribution<size_t>(0, sections.size() - 1)(random)];
            out += (random() % 2 ? "{{#" : "{{^") + name + "}}";
            open.push_back(name);
        } else if (roll == 1 && !open.empty()) {
            out += "{{/" + open.back() + "}}";
            open.pop_back();
        } else {
            out += pieces[std::uniform_int_distribution<size_t>(0, pieces.size() - 1)(random)];
        }
    }
    while (!open.empty()) {
        out += (random() % 2 ? "\n" : "") + std::string("{{/") + open.back() + "}}";
        open.pop_back();
    }
    return out;
}

} // namespace

TEST_CASE("model::fold_text renders what the unfolded template renders, for every kind of line end, blank and section") {
    const data variables = sample_data();
    for (const std::string html : {
             "", "plain", "\n", "\r\n", "\r", "\r\r\n\n\r", "a\nb\r\nc\rd", "  indented\n    more\n",
             "{{#yes}}\n  inside\n{{/yes}}\n", "  {{#no}}  \n  hidden\n  {{/no}}  \nafter", "{{^none}}\r\n  empty\r\n{{/none}}\r\n",
             "<ul>\n{{#people}}\n  <li>{{name}}</li>\n\n{{/people}}\n</ul>", "{{#words}}[{{.}}]\n {{/words}}",
             "{{! standalone comment }}\n  text  \n{{#person}}{{name}} {{/person}}\n", "a{{name}}b\n\n\n{{{name}}}\n  \t\n",
             "{{#yes}}\r  \r{{/yes}}\r", "  \n{{#yes}}\n\n  \n{{/yes}}  \n  \n"}) {
        CAPTURE(html);
        CHECK(folded_render(html, variables) == unfolded_render(html, variables));
    }
}

TEST_CASE("model::fold_text renders what the unfolded template renders, for a thousand random templates") {
    const data variables = sample_data();
    std::mt19937 random(20261128);
    int valid = 0;
    for (int i = 0; i < 1000; ++i) {
        const std::string html = random_template(random);
        CAPTURE(html);
        // Stray braces make some templates invalid: folded, they are just as invalid.
        if (!mustache(html).is_valid()) {
            CHECK_FALSE(mustache(wr::model::fold_text(html).html).is_valid());
            continue;
        }
        ++valid;
        REQUIRE(folded_render(html, variables) == unfolded_render(html, variables));
    }
    CHECK(valid > 700);
}

TEST_CASE("model::fold_text folds a page of blanks to its tags, and keeps the offsets of tags") {
    std::string page = "<html>\n";
    for (int i = 0; i < 16384; ++i) page += std::string(60, ' ') + "\n";
    page += "  <p>{{waitTime}}</p>\n" + std::string(100000, ' ') + "{{#queueAll}}x{{/queueAll}}\n";
    const wr::model::FoldedTemplate folded = wr::model::fold_text(page);
    CHECK(folded.html.size() < 200);
    std::string joined;
    for (const std::string& text : folded.texts) joined += text;
    CHECK(joined.size() + 64 > page.size());

    // New delimiters: the library reads the template as it is. A tag left open: from there on.
    const wr::model::FoldedTemplate delimiters = wr::model::fold_text("{{=<% %>=}}\n  <% name %>\n");
    CHECK(delimiters.html == "{{=<% %>=}}\n  <% name %>\n");
    CHECK(delimiters.texts.empty());
    const std::string open = "some text\n  {{#a}} more {{ open\n  more\n";
    const wr::model::FoldedTemplate cut = wr::model::fold_text(open);
    CHECK(cut.html.ends_with("{{ open\n  more\n"));
    CHECK(cut.template_offset(cut.html.rfind("{{ open")) == open.find("{{ open"));
    CHECK(cut.template_offset(cut.html.find("{{#a}}")) == open.find("{{#a}}"));
}

TEST_CASE("page::CompiledTemplate renders the shipped pages as the library does unfolded") {
    wr::page::QueueView view;
    view.now = wr::test::k_test_start;
    view.last_updated = wr::test::k_test_start;
    view.wait_time_known = true;
    view.wait_time_minutes = 12;
    for (const char* file : {"templates/queue.html", "templates/reject.html"}) {
        CAPTURE(file);
        const std::string html(wr::util::embedded_file(file).value_or(""));
        REQUIRE(!html.empty());
        const auto rendered = wr::page::CompiledTemplate(html).render(view);
        REQUIRE(rendered);
        CHECK(*rendered == unfolded_render(wr::page::rewrite_boolean_variables(html), wr::page::template_data(view)));
    }
}
