// Renders templates. kainjow prints nothing for a boolean in {{name}} while mustache.js (whose
// behaviour Cloudflare's templates rely on) prints "true" or "false"; rewriting those tags to
// text twins keeps both sections and inline scripts (`var known = {{waitTimeKnown}};`) right.
#include "page/render.h"

#include <algorithm>
#include <kainjow/mustache.hpp>

#include "page/compiled_template.h"
#include "page/variables.h"
#include "util/trim.h"

namespace wr::page {
namespace {

bool is_boolean_variable(std::string_view name) {
    const auto& names = boolean_variable_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace

std::string rewrite_boolean_variables(std::string_view html) {
    std::string out;
    out.reserve(html.size() + 64);
    std::string open = "{{";
    std::string close = "}}";
    size_t at = 0;
    while (at < html.size()) {
        const size_t start = html.find(open, at);
        if (start == std::string_view::npos) break;
        out.append(html.substr(at, start - at));
        size_t inner = start + open.size();
        // Triple mustache {{{name}}} only exists with the default delimiters.
        const bool triple = open == "{{" && inner < html.size() && html[inner] == '{';
        const std::string closing = triple ? "}" + close : close;
        const size_t end = html.find(closing, inner);
        if (end == std::string_view::npos) {
            at = start;
            break;
        }
        const std::string_view body = html.substr(inner, end - inner);
        const size_t tag_end = end + closing.size();
        std::string_view name = body;
        char sigil = 0;
        if (triple) {
            name = body.substr(1);
            sigil = '{';
        } else if (!body.empty() && std::string_view("#^/!>=&").find(body.front()) != std::string_view::npos) {
            sigil = body.front();
            name = body.substr(1);
        }
        name = util::trim_blanks(name);
        if (sigil == '=' && body.size() >= 2 && body.back() == '=') {
            // {{=<% %>=}}: new delimiters for the rest of the template.
            const std::string_view spec = util::trim_blanks(body.substr(1, body.size() - 2));
            const size_t space = spec.find_first_of(" \t");
            if (space != std::string_view::npos) {
                const std::string_view new_open = spec.substr(0, space);
                const std::string_view new_close = util::trim_blanks(spec.substr(space));
                out.append(html.substr(start, tag_end - start));
                open = std::string(new_open);
                close = std::string(new_close);
                at = tag_end;
                continue;
            }
        }
        if ((sigil == 0 || sigil == '{' || sigil == '&') && is_boolean_variable(name)) {
            out.append(html.substr(start, inner - start));
            if (triple) out += '{';
            else if (sigil == '&') out += '&';
            out.append(name);
            out.append("__text");
            out.append(closing);
        } else {
            out.append(html.substr(start, tag_end - start));
        }
        at = tag_end;
    }
    out.append(html.substr(std::min(at, html.size())));
    return out;
}

std::optional<std::string> render_template(std::string_view html, const QueueView& view) {
    return CompiledTemplate(html).render(view);
}

} // namespace wr::page
