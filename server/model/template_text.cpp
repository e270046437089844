// Moves the text between a template's tags out into placeholders (see template_text.h).
#include "model/template_text.h"

namespace wr::model {
namespace {

// The library's line ends, matched as it matches them, left to right: "\r\n", "\n" or "\r".
size_t line_end_size(std::string_view text, size_t at) {
    if (text[at] == '\r') return at + 1 < text.size() && text[at + 1] == '\n' ? 2 : 1;
    return text[at] == '\n' ? 1 : 0;
}

class Folder {
public:
    explicit Folder(size_t size) { m_out.html.reserve(size / 4); }

    void verbatim(std::string_view text) {
        m_out.html.append(text);
        m_original_size += text.size();
    }

    // A placeholder for `text` (none for no text).
    void placeholder(std::string_view text) {
        if (text.empty()) return;
        m_out.html += "{{{";
        m_out.html += placeholder_name(m_out.texts.size());
        m_out.html += "}}}";
        m_out.texts.emplace_back(text);
        m_original_size += text.size();
        m_out.shifts.emplace_back(m_out.html.size(), static_cast<int64_t>(m_original_size) - static_cast<int64_t>(m_out.html.size()));
    }

    // The text between two tags: the rest of the first tag's line, its line end, the whole lines
    // between, the last line end, the start of the next tag's line. The lines between hold no
    // tag, so the library would print each of them as it is: printed as one value, they give
    // the same bytes.
    void text(std::string_view text) {
        size_t first = 0;
        while (first < text.size() && line_end_size(text, first) == 0) ++first;
        if (first == text.size()) return placeholder(text);
        const size_t first_size = line_end_size(text, first);
        size_t last = text.size() - 1;
        while (line_end_size(text, last) == 0) --last;
        if (text[last] == '\n' && last > first && text[last - 1] == '\r') --last;
        placeholder(text.substr(0, first));
        verbatim(text.substr(first, first_size));
        if (last == first) return placeholder(text.substr(first + first_size));
        const size_t last_size = line_end_size(text, last);
        placeholder(text.substr(first + first_size, last - first - first_size));
        verbatim(text.substr(last, last_size));
        placeholder(text.substr(last + last_size));
    }

    FoldedTemplate take() { return std::move(m_out); }

private:
    FoldedTemplate m_out;
    size_t m_original_size = 0; // of the template folded so far
};

} // namespace

std::string placeholder_name(size_t index) { return "\x01" + std::to_string(index); }

size_t FoldedTemplate::template_offset(size_t offset) const {
    int64_t more = 0;
    for (const auto& [at, difference] : shifts) {
        if (at > offset) break;
        more = difference;
    }
    return static_cast<size_t>(static_cast<int64_t>(offset) + more);
}

FoldedTemplate fold_text(std::string_view html) {
    if (html.find("{{=") != std::string_view::npos) return FoldedTemplate{std::string(html), {}, {}};
    Folder folder(html.size());
    size_t at = 0;
    while (at < html.size()) {
        const size_t start = html.find("{{", at);
        if (start == std::string_view::npos) {
            folder.text(html.substr(at));
            break;
        }
        folder.text(html.substr(at, start - at));
        // Where the library ends a tag: "{{{" at "}}}", any other at "}}".
        const bool triple = start + 2 < html.size() && html[start + 2] == '{';
        const std::string_view close = triple ? "}}}" : "}}";
        const size_t end = html.find(close, start + (triple ? 3 : 2));
        if (end == std::string_view::npos) {
            folder.verbatim(html.substr(start));
            break;
        }
        folder.verbatim(html.substr(start, end + close.size() - start));
        at = end + close.size();
    }
    return folder.take();
}

} // namespace wr::model
