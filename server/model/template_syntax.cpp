// Parses a template with the same Mustache library that renders it, and turns the library's
// character offsets into the line and column a person can find in an editor.
#include "model/template_syntax.h"

#include <kainjow/mustache.hpp>
#include <vector>

namespace wr::model {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The library makes an object of every blank character of a template (to find the lines a
// section tag stands alone on): a page of 1 MiB, the most a room takes, costs it about a second
// and 140 MiB when it is mostly blanks. Whether a template parses depends on its
// tags, not on how many blanks lie between them: it parses the template with each run of
// blanks outside tags cut to its first character. `breaks` maps offsets in the cut text back:
// (offset in the cut text where a run was cut, characters dropped before and there).
struct CutTemplate {
    std::string text;
    std::vector<std::pair<size_t, size_t>> breaks;

    size_t original_offset(size_t offset) const {
        size_t dropped = 0;
        for (const auto& [at, total] : breaks) {
            if (at > offset) break;
            dropped = total;
        }
        return offset + dropped;
    }
};

// nullopt for a template that sets its own delimiters (`{{=`): it is parsed whole.
std::optional<CutTemplate> cut_blanks(std::string_view html) {
    if (html.find("{{=") != std::string_view::npos) return std::nullopt;
    CutTemplate cut;
    cut.text.reserve(html.size());
    size_t dropped = 0;
    for (size_t i = 0; i < html.size();) {
        if (html.compare(i, 2, "{{") == 0) {
            // A tag goes whole, up to its end (an unclosed one, to the end of the text).
            const size_t end = html.find("}}", i + 2);
            const size_t stop = end == std::string_view::npos ? html.size() : end + 2 + (html.compare(end + 2, 1, "}") == 0 ? 1 : 0);
            cut.text.append(html.substr(i, stop - i));
            i = stop;
        } else if (is_blank(html[i])) {
            size_t run = i + 1;
            while (run < html.size() && is_blank(html[run])) ++run;
            cut.text += html[i];
            if (run > i + 1) {
                dropped += run - i - 1;
                cut.breaks.emplace_back(cut.text.size(), dropped);
            }
            i = run;
        } else {
            cut.text += html[i++];
        }
    }
    return cut;
}

std::string line_and_column(std::string_view text, size_t offset) {
    size_t line = 1;
    size_t column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

} // namespace

std::optional<std::string> template_syntax_error(std::string_view html) {
    const std::optional<CutTemplate> cut = cut_blanks(html);
    const kainjow::mustache::mustache parsed{cut ? cut->text : std::string(html)};
    if (parsed.is_valid()) return std::nullopt;
    // The library reports "… at <offset>"; rewrite the offset as a line and column.
    const std::string& message = parsed.error_message();
    const size_t at = message.rfind(" at ");
    if (at == std::string::npos) return message;
    const std::string digits = message.substr(at + 4);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return message;
    const size_t offset = std::stoul(digits);
    return message.substr(0, at) + " at " + line_and_column(html, cut ? cut->original_offset(offset) : offset);
}

} // namespace wr::model
