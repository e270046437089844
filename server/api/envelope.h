#pragma once
// Cloudflare's v4 response envelope.
#include <nlohmann/json.hpp>
#include <optional>

#include "control/error.h"
#include "util/clock.h"

namespace wr::api {

nlohmann::json success_envelope(const nlohmann::json& result, const std::optional<nlohmann::json>& result_info);
nlohmann::json error_envelope(const control::Error& error);

// Pagination of list endpoints: ?page (≥ 1) and ?per_page (5..1000, default 25).
struct PageRequest {
    int64_t page = 1;
    int64_t per_page = 25;

    int64_t offset() const { return (page - 1) * per_page; }
};

struct Request;
PageRequest page_request(const Request& request);
nlohmann::json result_info(const PageRequest& page, size_t count, int64_t total_count);

// A time in a query parameter: ISO 8601 or Unix seconds; throws 400 naming the parameter.
std::optional<util::TimePoint> time_parameter(const Request& request, const std::string& name);

} // namespace wr::api
