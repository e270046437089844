#pragma once
// Strict reading for files a person writes by hand (`wr apply -f`): a field the document's shape
// does not have is an error naming its path and the nearest known field, so a typo is never
// taken silently for "leave it at its default". The API's own bodies stay lenient, as
// Cloudflare's are; this is for wr's own formats.
#include <nlohmann/json.hpp>
#include <string>

#include "model/field_error.h"

namespace wr::model {

// Every field of `given` that `shape` lacks, as "PATH: unknown field (did you mean NAME?)".
// `shape` is an example of the document: an object lists the known fields (and, where a value is
// an object or a non-empty array of objects, the fields within); values are otherwise ignored.
FieldErrors unknown_fields(const nlohmann::json& given, const nlohmann::json& shape, const std::string& path = "");

} // namespace wr::model
