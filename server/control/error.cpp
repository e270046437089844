// The control plane's error type.
#include "control/error.h"

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

} // namespace

Error::Error(ErrorCode code, int http_status, model::FieldErrors errors)
    : std::runtime_error(summary(errors)), m_code(code), m_http_status(http_status), m_errors(std::move(errors)) {}

} // namespace wr::control
