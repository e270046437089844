// Parses a template with the same Mustache library that renders it — folded as it is compiled
// (model/template_text.h), so that a page of 1 MiB of text takes milliseconds, not a second —
// and turns the library's character offsets into the line and column a person can find in an
// editor.
#include "model/template_syntax.h"

#include <kainjow/mustache.hpp>

#include "model/template_text.h"

namespace wr::model {
namespace {

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
    const FoldedTemplate folded = fold_text(html);
    const kainjow::mustache::mustache parsed{folded.html};
    if (parsed.is_valid()) return std::nullopt;
    // The library reports "… at <offset>"; rewrite the offset as a line and column.
    const std::string& message = parsed.error_message();
    const size_t at = message.rfind(" at ");
    if (at == std::string::npos) return message;
    const std::string digits = message.substr(at + 4);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return message;
    const size_t offset = std::stoul(digits);
    return message.substr(0, at) + " at " + line_and_column(html, folded.template_offset(offset));
}

} // namespace wr::model
