// Keeps schema/openapi.json in step with the route tables the admin server registers.
#include <doctest/doctest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <utility>

#include "api/routes.h"
#include "control/error.h"
#include "model/json_codec.h"
#include "support/test_server.h"
#include "util/embedded_files.h"

using nlohmann::json;

namespace {

const std::set<std::string> k_http_methods = {"get", "put", "post", "delete", "options", "head", "patch", "trace"};

json openapi() {
    const auto text = wr::util::embedded_file("schema/openapi.json");
    REQUIRE(text);
    return json::parse(*text);
}

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// (path, lowercase method) of every operation in the document; path-item keys that are not
// methods (parameters, summary, …) are skipped.
std::set<std::pair<std::string, std::string>> documented_operations(const json& document) {
    std::set<std::pair<std::string, std::string>> operations;
    for (const auto& [path, item] : document.at("paths").items())
        for (const auto& [key, operation] : item.items())
            if (k_http_methods.contains(key)) operations.insert({path, key});
    return operations;
}

void collect_refs(const json& node, std::set<std::string>& refs) {
    if (node.is_object()) {
        for (const auto& [key, value] : node.items()) {
            if (key == "$ref" && value.is_string()) refs.insert(value.get<std::string>());
            collect_refs(value, refs);
        }
    } else if (node.is_array()) {
        for (const json& item : node) collect_refs(item, refs);
    }
}

// Follows a local "$ref" (parameters may be references to components/parameters).
const json& resolve(const json& document, const json& node) {
    if (!node.contains("$ref")) return node;
    return document.at(json::json_pointer(node.at("$ref").get<std::string>().substr(1)));
}

// The names of the path parameters an operation declares, at the path level or its own.
std::set<std::string> declared_path_parameters(const json& document, const json& item, const json& operation) {
    std::set<std::string> names;
    for (const json* list : {&item, &operation}) {
        if (!list->contains("parameters")) continue;
        for (const json& entry : list->at("parameters")) {
            const json& parameter = resolve(document, entry);
            if (parameter.at("in") != "path") continue;
            CHECK(parameter.value("required", false));
            names.insert(parameter.at("name").get<std::string>());
        }
    }
    return names;
}

std::set<std::string> template_parameters(const std::string& path) {
    std::set<std::string> names;
    const std::regex placeholder(R"(\{([^}]+)\})");
    for (auto it = std::sregex_iterator(path.begin(), path.end(), placeholder); it != std::sregex_iterator(); ++it)
        names.insert((*it)[1].str());
    return names;
}

} // namespace

TEST_CASE("api: every registered route is documented in openapi.json") {
    const json document = openapi();
    for (const wr::api::Route& route : wr::api::all_routes()) {
        CAPTURE(route.method);
        CAPTURE(route.pattern);
        REQUIRE(document.at("paths").contains(route.pattern));
        CHECK(document.at("paths").at(route.pattern).contains(lowercase(route.method)));
    }
}

TEST_CASE("api: openapi.json documents no route the server does not register") {
    const json document = openapi();
    std::set<std::pair<std::string, std::string>> registered;
    for (const wr::api::Route& route : wr::api::all_routes()) registered.insert({route.pattern, lowercase(route.method)});
    const auto documented = documented_operations(document);
    CHECK(documented.size() == registered.size());
    for (const auto& [path, method] : documented) {
        CAPTURE(path);
        CAPTURE(method);
        CHECK(registered.contains({path, method}));
    }
}

TEST_CASE("api: openapi.json asks for the bearer token on every route but the public ones") {
    const json document = openapi();
    const json& scheme = document.at("components").at("securitySchemes").at("bearer");
    CHECK(scheme.at("type") == "http");
    CHECK(scheme.at("scheme") == "bearer");
    for (const wr::api::Route& route : wr::api::all_routes()) {
        CAPTURE(route.method);
        CAPTURE(route.pattern);
        const json& paths = document.at("paths");
        REQUIRE(paths.contains(route.pattern));
        REQUIRE(paths.at(route.pattern).contains(lowercase(route.method)));
        const json& operation = paths.at(route.pattern).at(lowercase(route.method));
        REQUIRE(operation.contains("security"));
        if (route.access == wr::api::Access::public_access) {
            CHECK(operation.at("security") == json::array());
        } else {
            CHECK(operation.at("security") == json::array({{{"bearer", json::array()}}}));
            CHECK(operation.at("responses").contains("401"));
        }
    }
}

TEST_CASE("api: openapi.json is a 3.0.3 document whose references all resolve") {
    const json document = openapi();
    CHECK(document.at("openapi") == "3.0.3");
    CHECK(document.at("info").contains("title"));
    CHECK(document.at("info").contains("version"));

    std::set<std::string> refs;
    collect_refs(document, refs);
    CHECK(refs.size() > 20);
    for (const std::string& ref : refs) {
        CAPTURE(ref);
        REQUIRE(ref.starts_with("#/components/"));
        CHECK(document.contains(json::json_pointer(ref.substr(1))));
    }

    std::set<std::string> operation_ids;
    for (const auto& [path, method] : documented_operations(document)) {
        CAPTURE(path);
        CAPTURE(method);
        const json& item = document.at("paths").at(path);
        const json& operation = item.at(method);
        CHECK(operation_ids.insert(operation.at("operationId").get<std::string>()).second);
        CHECK(operation.at("responses").contains("200"));
        CHECK(declared_path_parameters(document, item, operation) == template_parameters(path));
    }
}

TEST_CASE("api: openapi.json lists every wr error code") {
    using wr::control::ErrorCode;
    const json document = openapi();
    json codes = json::array();
    for (const ErrorCode code : {ErrorCode::invalid_json, ErrorCode::validation, ErrorCode::conflict, ErrorCode::not_found,
                                 ErrorCode::missing_token, ErrorCode::invalid_token, ErrorCode::insufficient_scope,
                                 ErrorCode::wrong_zone, ErrorCode::body_too_large, ErrorCode::unsupported_media_type,
                                 ErrorCode::method_not_allowed, ErrorCode::bad_query, ErrorCode::storage_unavailable,
                                 ErrorCode::wrong_token_kind, ErrorCode::control_unreachable, ErrorCode::node_claimed, ErrorCode::busy,
                                 ErrorCode::unreadable_request,
                                 ErrorCode::internal})
        codes.push_back(static_cast<int>(code));
    CHECK(document.at("components").at("schemas").at("Message").at("properties").at("code").at("enum") == codes);
    for (const char* status : {"400", "401", "403", "404", "413", "415"}) {
        CAPTURE(status);
        const json& response = document.at("components").at("responses").at(std::string("Error") + status);
        CHECK(response.at("content").at("application/json").at("schema").at("$ref") == "#/components/schemas/ErrorEnvelope");
    }
}

TEST_CASE("api: openapi.json's zone and room schemas hold every field the API writes, origin protection with its ranges") {
    const json document = openapi();
    const json& schemas = document.at("components").at("schemas");
    const auto keys_of = [](const json& object) {
        std::set<std::string> keys;
        for (const auto& [key, value] : object.items()) keys.insert(key);
        return keys;
    };
    const auto required_of = [](const json& schema) {
        std::set<std::string> keys;
        for (const json& key : schema.at("required")) keys.insert(key.get<std::string>());
        return keys;
    };

    const json zone = wr::model::to_json(wr::model::Zone{});
    CHECK(keys_of(schemas.at("Zone").at("properties")) == keys_of(zone));
    CHECK(required_of(schemas.at("Zone")) == keys_of(zone));
    const json room = wr::model::to_json(wr::model::Room{}, {});
    CHECK(keys_of(schemas.at("WaitingRoom").at("properties")) == keys_of(room));
    CHECK(required_of(schemas.at("WaitingRoom")) == keys_of(room));
    CHECK(keys_of(schemas.at("OriginGuard").at("properties")) == keys_of(room.at("origin_guard")));
    CHECK(keys_of(schemas.at("OriginGuardInput").at("properties")) == keys_of(room.at("origin_guard")));
    CHECK(schemas.at("OriginGuardInput").at("additionalProperties") == false); // unknown fields are refused
    for (const char* input : {"WaitingRoomInput", "WaitingRoomPatch"})
        CHECK(schemas.at(input).at("properties").at("origin_guard").at("$ref") == "#/components/schemas/OriginGuardInput");
    for (const char* input : {"ZoneInput", "ZonePatch"}) {
        CAPTURE(input);
        CHECK(schemas.at(input).at("properties").contains("max_origin_connections"));
        CHECK(schemas.at(input).at("properties").contains("origin_queue_timeout_seconds"));
    }

    // The documented ranges and defaults are the model's.
    const auto range = [](const json& property) {
        return std::to_string(property.value("minimum", -1.0)) + ".." + std::to_string(property.value("maximum", -1.0)) + " default " +
               property.at("default").dump();
    };
    const json& guard = schemas.at("OriginGuard").at("properties");
    const wr::model::OriginGuardSettings guard_defaults;
    CHECK(range(guard.at("target_ttfb_ms")) == range({{"minimum", wr::model::k_min_target_ttfb_ms},
                                                      {"maximum", wr::model::k_max_target_ttfb_ms},
                                                      {"default", guard_defaults.target_ttfb_ms}}));
    CHECK(range(guard.at("max_error_rate")) == range({{"minimum", 0}, {"maximum", 1}, {"default", guard_defaults.max_error_rate}}));
    CHECK(range(guard.at("min_new_users_per_minute")) == range({{"minimum", 0}, {"default", guard_defaults.min_new_users_per_minute}}));
    CHECK(guard.at("enabled").at("default") == guard_defaults.enabled);
    const json& zone_properties = schemas.at("Zone").at("properties");
    const wr::model::ZoneSettings zone_defaults;
    CHECK(range(zone_properties.at("max_origin_connections")) ==
          range({{"minimum", 0}, {"maximum", wr::model::k_max_origin_connections}, {"default", zone_defaults.max_origin_connections}}));
    CHECK(range(zone_properties.at("origin_queue_timeout_seconds")) ==
          range({{"minimum", wr::model::k_min_origin_queue_timeout_seconds},
                 {"maximum", wr::model::k_max_origin_queue_timeout_seconds},
                 {"default", zone_defaults.origin_queue_timeout_seconds}}));

    // The status additions the console and `wr rooms status` read.
    const json& status = schemas.at("Status").at("properties");
    CHECK(status.contains("effective_total_active_users"));
    CHECK(status.contains("effective_new_users_per_minute"));
    CHECK(status.at("origin_guard").at("properties").at("state").at("enum") ==
          json{"off", "content", "throttling", "recovering"});
}

TEST_SUITE("integration") {

TEST_CASE("integration: the admin API serves its OpenAPI document to token holders only") {
    wr::test::TestServer wr;
    const auto anonymous = wr.send("GET", "/client/v4/openapi.json", "", {});
    CHECK(anonymous.status == 401);
    CHECK(anonymous.body["errors"][0]["code"] == static_cast<int>(wr::control::ErrorCode::missing_token));

    const auto reply = wr.get("/client/v4/openapi.json");
    CHECK(reply.status == 200);
    CHECK(reply.text == *wr::util::embedded_file("schema/openapi.json"));
    CHECK(reply.body == openapi());
}

} // TEST_SUITE
