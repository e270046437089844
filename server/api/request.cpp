// Accessors of the admin API's request type, and the body rules of docs/api.md: valid JSON is
// accepted whatever its declared type; anything else is 400, or 415 when it says it is not JSON.
#include "api/request.h"

#include "control/error.h"

namespace wr::api {
namespace {

bool declares_non_json(const std::string& content_type) {
    if (content_type.empty()) return false;
    const std::string media = content_type.substr(0, content_type.find(';'));
    return media.find("json") == std::string::npos;
}

} // namespace

const std::string& Request::param(const std::string& name) const {
    static const std::string k_empty;
    const auto it = params.find(name);
    return it == params.end() ? k_empty : it->second;
}

std::optional<std::string> Request::query_value(const std::string& name) const {
    const auto it = query.find(name);
    if (it == query.end()) return std::nullopt;
    return it->second;
}

std::optional<std::string> Request::header(const std::string& lowercase_name) const {
    const auto it = headers.find(lowercase_name);
    if (it == headers.end()) return std::nullopt;
    return it->second;
}

nlohmann::json Request::json_body() const {
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::json::object();
    try {
        return nlohmann::json::parse(body);
    } catch (const nlohmann::json::parse_error& error) {
        const std::string content_type = header("content-type").value_or("");
        if (declares_non_json(content_type))
            throw control::Error::of(control::ErrorCode::unsupported_media_type, 415,
                                     "the request body must be JSON (Content-Type: application/json), not " + content_type);
        throw control::Error::of(control::ErrorCode::invalid_json, 400,
                                 "the request body is not valid JSON (at byte " + std::to_string(error.byte) + ")");
    }
}

} // namespace wr::api
