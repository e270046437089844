#pragma once
// Renders a queue-page template with the Debian-packaged kainjow Mustache library.
#include <optional>
#include <string>
#include <string_view>

#include "page/queue_view.h"

namespace wr::page {

// Renders `html` (which must already have passed model::template_syntax_error) with the
// variables of `view`. nullopt only if the library fails at render time.
std::optional<std::string> render_template(std::string_view html, const QueueView& view);

// Rewrites {{name}}, {{{name}}} and {{&name}} of boolean variables to their text twins, so that
// they print "true"/"false" (as in Cloudflare's templates) while {{#name}} and {{^name}} still
// test them. Follows {{=<% %>=}} delimiter changes. Exposed for tests.
std::string rewrite_boolean_variables(std::string_view html);

} // namespace wr::page
