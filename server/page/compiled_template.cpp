// Parses a template once, renders it per visitor.
#include "page/compiled_template.h"

#include <kainjow/mustache.hpp>

#include "page/render.h"
#include "page/variables.h"

namespace wr::page {

CompiledTemplate::CompiledTemplate(std::string_view html)
    : m_template(std::make_unique<kainjow::mustache::mustache>(rewrite_boolean_variables(html))) {}

CompiledTemplate::~CompiledTemplate() = default;
CompiledTemplate::CompiledTemplate(CompiledTemplate&&) noexcept = default;

bool CompiledTemplate::valid() const { return m_template->is_valid(); }

std::optional<std::string> CompiledTemplate::render(const QueueView& view, const std::map<std::string, std::string>* overrides) {
    if (!m_template->is_valid()) return std::nullopt;
    std::string rendered = m_template->render(template_data(view, overrides));
    if (!m_template->is_valid()) return std::nullopt;
    return rendered;
}

} // namespace wr::page
