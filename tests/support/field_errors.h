#pragma once
// Validation errors as one line of text, so a test can compare them with what it expects.
#include <string>

#include "model/field_error.h"

namespace wr::test {

// "[field: reason][field: reason]…", in the order they were found.
std::string describe(const model::FieldErrors& errors);

} // namespace wr::test
