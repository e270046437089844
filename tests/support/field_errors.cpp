// Validation errors as one line of text.
#include "support/field_errors.h"

namespace wr::test {

std::string describe(const model::FieldErrors& errors) {
    std::string text;
    for (const model::FieldError& error : errors) text += "[" + error.text() + "]";
    return text;
}

} // namespace wr::test
