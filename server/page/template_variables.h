#pragma once
// The variables a Mustache template refers to, so that a preview can warn of one that wr never
// sets (a typo renders as nothing, silently, on every queue page).
#include <string>
#include <string_view>
#include <vector>

namespace wr::page {

// The names in {{name}}, {{{name}}}, {{&name}}, {{#name}} and {{^name}} tags, each once, in the
// order they first appear; for a dotted name, its first part. Comments, partials and section
// ends are not references. A template that changes its delimiters is read up to that tag.
std::vector<std::string> template_variables(std::string_view html);

// Every variable wr sets on a queue page (Cloudflare's names and wr's own).
const std::vector<std::string>& queue_page_variables();

} // namespace wr::page
