// Compares a document with an example of its shape, field by field, at every depth.
#include "model/known_fields.h"

#include "util/nearest_name.h"

namespace wr::model {
namespace {

void collect(const nlohmann::json& given, const nlohmann::json& shape, const std::string& path, FieldErrors& errors) {
    if (given.is_array() && shape.is_array() && !shape.empty()) {
        for (size_t i = 0; i < given.size(); ++i) collect(given[i], shape[0], path + "[" + std::to_string(i) + "]", errors);
        return;
    }
    if (!given.is_object() || !shape.is_object()) return; // a wrong type is the reader's to name
    std::vector<std::string> known;
    for (const auto& [key, value] : shape.items()) known.push_back(key);
    const std::string prefix = path.empty() ? "" : path + ".";
    for (const auto& [key, value] : given.items()) {
        const auto it = shape.find(key);
        if (it == shape.end()) {
            errors.push_back({prefix + key, "unknown field" + util::did_you_mean(key, known)});
            continue;
        }
        collect(value, *it, prefix + key, errors);
    }
}

} // namespace

FieldErrors unknown_fields(const nlohmann::json& given, const nlohmann::json& shape, const std::string& path) {
    FieldErrors errors;
    collect(given, shape, path, errors);
    return errors;
}

} // namespace wr::model
