#pragma once
// Checks that a custom queue page is a Mustache template that parses.
#include <optional>
#include <string>
#include <string_view>

namespace wr::model {

// nullopt when the template parses, else the parser's complaint with its line and column:
// "Unclosed tag at line 3, column 5".
std::optional<std::string> template_syntax_error(std::string_view html);

} // namespace wr::model
