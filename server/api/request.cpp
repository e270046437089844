// Accessors of the admin API's request type, and the body rules of docs/api.md: valid JSON is
// accepted whatever its declared type; anything else is 400, or 415 when it says it is not JSON.
#include "api/request.h"

#include "control/error.h"
#include "util/ascii_case.h"
#include "util/escape.h"

namespace wr::api {
namespace {

// Media types are case-insensitive (RFC 9110 §8.3.1): APPLICATION/JSON is JSON.
bool declares_non_json(const std::string& content_type) {
    if (content_type.empty()) return false;
    const std::string media = util::lowercase(content_type.substr(0, content_type.find(';')));
    return media.find("json") == std::string::npos;
}

// Where a parse stopped, and the token there: the DOM parser's out_of_range (a number too large
// for a double) tells neither, so such a body is read again by this, which builds nothing.
class FailurePoint : public nlohmann::json_sax<nlohmann::json> {
public:
    using json = nlohmann::json;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(json::number_integer_t) override { return true; }
    bool number_unsigned(json::number_unsigned_t) override { return true; }
    bool number_float(json::number_float_t, const json::string_t&) override { return true; }
    bool string(json::string_t&) override { return true; }
    bool binary(json::binary_t&) override { return true; }
    bool start_object(size_t) override { return true; }
    bool key(json::string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(size_t position, const std::string& last_token, const json::exception&) override {
        m_position = position;
        m_token = last_token;
        return false;
    }
    size_t position() const { return m_position; }
    const std::string& token() const { return m_token; }

private:
    size_t m_position = 0;
    std::string m_token;
};

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
    std::string problem;
    try {
        return nlohmann::json::parse(body);
    } catch (const nlohmann::json::parse_error& error) {
        problem = "is not valid JSON (at byte " + std::to_string(error.byte) + ")";
    } catch (const nlohmann::json::out_of_range&) {
        // 1e400: well-formed, but no double holds it (the parser's error 406).
        FailurePoint failure;
        nlohmann::json::sax_parse(body, &failure);
        const std::string& token = failure.token();
        const std::string shown = token.size() > 32 ? token.substr(0, 32) + "…" : token;
        problem = "has a number too large to read: " + util::printable_text(shown) + " at byte " +
                  std::to_string(failure.position()) + " (a number may be at most about 1.8e308)";
    }
    const std::string content_type = header("content-type").value_or("");
    if (declares_non_json(content_type))
        throw control::Error::of(control::ErrorCode::unsupported_media_type, 415,
                                 "the request body must be JSON (Content-Type: application/json), not " +
                                     util::printable_text(content_type));
    throw control::Error::of(control::ErrorCode::invalid_json, 400, "the request body " + problem);
}

} // namespace wr::api
