// The control plane's error type.
#include "control/error.h"

#include "util/escape.h"

namespace wr::control {
namespace {

std::string summary(const model::FieldErrors& errors) {
    std::string text;
    for (const model::FieldError& error : errors) {
        if (!text.empty()) text += "; ";
        text += error.text();
    }
    return text;
}

// One more than the limit is listed whole: "…and 1 more" would take the line it saves.
model::FieldErrors& cap(model::FieldErrors& errors) {
    if (errors.size() <= k_max_listed_errors + 1) return errors;
    const size_t more = errors.size() - k_max_listed_errors;
    errors.resize(k_max_listed_errors);
    errors.push_back({"", "…and " + std::to_string(more) + " more errors"});
    return errors;
}

} // namespace

// The base is built first: the list is cut there, and the member takes the cut list.
Error::Error(ErrorCode code, int http_status, model::FieldErrors errors)
    : std::runtime_error(summary(cap(errors))), m_code(code), m_http_status(http_status), m_errors(std::move(errors)) {}

Error Error::not_found(const std::string& resource, std::string_view id) {
    return Error(ErrorCode::not_found, 404, {{"", resource + " '" + util::printable_text(id) + "' not found"}});
}

} // namespace wr::control
