#pragma once
// A template parsed once and rendered many times, its text folded out of the library's way
// (model/template_text.h). Not thread-safe (the library's render is not const): each edge thread
// keeps its own.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "page/queue_view.h"

namespace kainjow::mustache {
template <typename string_type> class basic_mustache;
template <typename string_type> class basic_data;
}

namespace wr::page {

class CompiledTemplate {
public:
    explicit CompiledTemplate(std::string_view html);
    ~CompiledTemplate();
    CompiledTemplate(CompiledTemplate&&) noexcept;

    bool valid() const;
    // The page, or nullopt if the library fails at render time.
    std::optional<std::string> render(const QueueView& view, const std::map<std::string, std::string>* overrides = nullptr);

private:
    std::unique_ptr<kainjow::mustache::basic_mustache<std::string>> m_template;
    // The placeholders' texts, looked up below each render's own variables.
    std::unique_ptr<kainjow::mustache::basic_data<std::string>> m_texts;
    // The last page's size: the next one takes its room at once rather than growing into it.
    size_t m_last_size = 0;
};

} // namespace wr::page
