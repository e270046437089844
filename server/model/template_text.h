#pragma once
// A template with the text between its tags moved out, for the Mustache library (kainjow) to
// parse and walk: it makes one object of every blank character and every word of a template's
// text, so a custom page of 1 MiB that is mostly indentation took about a second and 140 MiB to
// check (model/template_syntax) and to compile (page/compiled_template, per edge thread), and
// every render walked those objects again. Folded, each stretch of text between two tags becomes
// at most three placeholders — the rest of a tag's line, the whole lines after it, the start of
// the next tag's line — whose texts the render supplies. The lines stay where they were, so the
// library's one rule that looks at text (a line holding only a section tag and blanks is left
// out) sees the same lines: the page renders byte for byte as the template unfolded would. Pure.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wr::model {

struct FoldedTemplate {
    std::string html;                // the template, its text replaced by {{{placeholder}}} tags
    std::vector<std::string> texts;  // what placeholder i stands for (its name: placeholder_name(i))
    // (offset in `html` just past a placeholder, how many characters more the template had up
    // to there: fewer, if its texts were shorter than their placeholders)
    std::vector<std::pair<size_t, int64_t>> shifts;

    // Where an offset of `html` outside the placeholders (a tag's, as the library's errors give
    // them) lies in the template.
    size_t template_offset(size_t offset) const;
};

// `html` folded. A template that sets its own delimiters (`{{=`) is returned whole, as it is;
// from a tag left open on, the rest is left as it is (the library stops there).
FoldedTemplate fold_text(std::string_view html);

// The name of placeholder `index`: starts with a control character, so no template's own
// variables can take it.
std::string placeholder_name(size_t index);

} // namespace wr::model
