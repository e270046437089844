// Parses a template once, renders it per visitor.
#include "page/compiled_template.h"

#include <kainjow/mustache.hpp>

#include "model/template_text.h"
#include "page/render.h"
#include "page/variables.h"

namespace wr::page {

namespace {

// Where the library writes a render: straight into the page, where its own render goes through
// a string stream and copies the page out of it once more.
struct PageSink {
    std::string& page;
    PageSink& operator<<(const std::string& text) {
        page.append(text);
        return *this;
    }
};

} // namespace

CompiledTemplate::CompiledTemplate(std::string_view html) : m_texts(std::make_unique<kainjow::mustache::data>()) {
    model::FoldedTemplate folded = model::fold_text(rewrite_boolean_variables(html));
    m_template = std::make_unique<kainjow::mustache::mustache>(folded.html);
    for (size_t i = 0; i < folded.texts.size(); ++i) m_texts->set(model::placeholder_name(i), std::move(folded.texts[i]));
}

CompiledTemplate::~CompiledTemplate() = default;
CompiledTemplate::CompiledTemplate(CompiledTemplate&&) noexcept = default;

bool CompiledTemplate::valid() const { return m_template->is_valid(); }

std::optional<std::string> CompiledTemplate::render(const QueueView& view, const std::map<std::string, std::string>* overrides) {
    if (!m_template->is_valid()) return std::nullopt;
    const kainjow::mustache::data variables = template_data(view, overrides);
    kainjow::mustache::context<std::string> context(m_texts.get());
    context.push(&variables);
    std::string rendered;
    rendered.reserve(m_last_size);
    PageSink sink{rendered};
    m_template->render(context, sink);
    m_last_size = rendered.size();
    if (!m_template->is_valid()) return std::nullopt;
    return rendered;
}

} // namespace wr::page
