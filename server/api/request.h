#pragma once
// The admin API's own request and reply types: handlers read a Request and return a Reply,
// and never see the HTTP library.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/token.h"
#include "model/zone.h"

namespace wr::api {

struct Request {
    std::string method;
    std::string path;
    std::map<std::string, std::string> params; // from the route pattern: zone_id, room_id, …
    std::multimap<std::string, std::string> query;
    std::map<std::string, std::string> headers; // names lowercased
    std::string body;
    std::string base_url; // "http://127.0.0.1:9090": how the client reached us, for URLs we hand out
    std::string remote_address; // the client's IP address as the socket has it ("127.0.0.1", "::1")

    std::optional<model::Token> token;  // set once authenticated (its id and name say who asked)
    std::optional<model::Zone> zone;    // set when the route has {zone_id}

    const std::string& param(const std::string& name) const;
    std::optional<std::string> query_value(const std::string& name) const;
    std::optional<std::string> header(const std::string& lowercase_name) const;
    // The body as JSON (an empty body is {}); throws 400 for malformed JSON, 415 for a body
    // that is not JSON and declares a non-JSON type. Through dispatch(), the body has been held
    // to the JSON limits (json_limits.h) before any handler runs.
    nlohmann::json json_body() const;
};

struct Reply {
    int status = 200;
    nlohmann::json result;                   // wrapped in the v4 envelope
    std::optional<nlohmann::json> result_info;
    std::optional<std::string> raw_body;     // sent as is (HTML, OpenAPI, CSV, …) instead of the envelope
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> headers; // extra response headers (Content-Security-Policy, …)
    bool quiet = false; // routine (edges' polls): logged at debug level, not info
};

inline Reply ok(nlohmann::json result) {
    Reply reply;
    reply.result = std::move(result);
    return reply;
}
inline Reply raw(std::string body, std::string content_type, int status = 200) {
    Reply reply;
    reply.status = status;
    reply.raw_body = std::move(body);
    reply.content_type = std::move(content_type);
    return reply;
}

} // namespace wr::api
