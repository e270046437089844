// A small scan of Mustache tags; the template itself is parsed (and refused) elsewhere.
#include "page/template_variables.h"

#include <algorithm>

#include "page/variables.h"

namespace wr::page {
namespace {

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' || text.front() == '\r'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

} // namespace

std::vector<std::string> template_variables(std::string_view html) {
    std::vector<std::string> names;
    size_t at = 0;
    while ((at = html.find("{{", at)) != std::string_view::npos) {
        const bool triple = html.substr(at, 3) == "{{{";
        const std::string_view close = triple ? "}}}" : "}}";
        const size_t start = at + (triple ? 3 : 2);
        const size_t end = html.find(close, start);
        if (end == std::string_view::npos) break;
        at = end + close.size();
        std::string_view tag = trimmed(html.substr(start, end - start));
        if (tag.empty()) continue;
        if (!triple) {
            const char kind = tag.front();
            if (kind == '=') break;                                    // new delimiters: read no further
            if (kind == '!' || kind == '/' || kind == '>') continue;   // comment, section end, partial
            if (kind == '#' || kind == '^' || kind == '&') tag = trimmed(tag.substr(1));
        }
        if (tag.empty() || tag == ".") continue;
        const std::string name(tag.substr(0, tag.find('.')));
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    return names;
}

const std::vector<std::string>& queue_page_variables() {
    static const std::vector<std::string> k_names = [] {
        std::vector<std::string> names;
        const nlohmann::json response = json_response(QueueView{});
        for (const auto& [name, value] : response.at("cfWaitingRoom").items()) names.push_back(name);
        return names;
    }();
    return k_names;
}

} // namespace wr::page
