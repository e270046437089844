// Builds v4 envelopes and reads pagination parameters.
#include "api/envelope.h"

#include "api/request.h"
#include "util/time_format.h"

namespace wr::api {
namespace {

int64_t integer_parameter(const Request& request, const char* name, int64_t fallback, int64_t low, int64_t high) {
    const auto text = request.query_value(name);
    if (!text) return fallback;
    const std::string range = "must be an integer between " + std::to_string(low) + " and " + std::to_string(high);
    if (text->empty() || text->size() > 10 || text->find_first_not_of("0123456789") != std::string::npos)
        throw control::Error::bad_query(name, range);
    const int64_t value = std::stoll(*text);
    if (value < low || value > high) throw control::Error::bad_query(name, range);
    return value;
}

} // namespace

std::optional<util::TimePoint> time_parameter(const Request& request, const std::string& name) {
    const auto text = request.query_value(name);
    if (!text) return std::nullopt;
    if (!text->empty() && text->size() <= 12 && text->find_first_not_of("0123456789") == std::string::npos)
        return util::TimePoint{std::chrono::seconds{std::stoll(*text)}};
    if (const auto time = util::parse_iso8601(*text)) return time;
    throw control::Error::bad_query(name, "must be an ISO 8601 time (2026-11-22T10:00:00Z) or Unix seconds");
}

nlohmann::json success_envelope(const nlohmann::json& result, const std::optional<nlohmann::json>& result_info) {
    nlohmann::json envelope = {{"success", true},
                               {"errors", nlohmann::json::array()},
                               {"messages", nlohmann::json::array()},
                               {"result", result}};
    if (result_info) envelope["result_info"] = *result_info;
    return envelope;
}

nlohmann::json error_envelope(const control::Error& error) {
    nlohmann::json errors = nlohmann::json::array();
    for (const model::FieldError& field_error : error.errors())
        errors.push_back({{"code", static_cast<int>(error.code())}, {"message", field_error.text()}});
    return {{"success", false}, {"errors", errors}, {"messages", nlohmann::json::array()}, {"result", nullptr}};
}

PageRequest page_request(const Request& request) {
    PageRequest page;
    page.page = integer_parameter(request, "page", 1, 1, 1000000000);
    page.per_page = integer_parameter(request, "per_page", 25, 5, 1000);
    return page;
}

nlohmann::json result_info(const PageRequest& page, size_t count, int64_t total_count) {
    return {{"page", page.page},
            {"per_page", page.per_page},
            {"count", count},
            {"total_count", total_count},
            {"total_pages", (total_count + page.per_page - 1) / page.per_page}};
}

} // namespace wr::api
