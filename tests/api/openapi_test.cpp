// schema/openapi.json against the routes the server registers.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "api/routes.h"
#include "support/test_server.h"
#include "util/embedded_files.h"

using nlohmann::json;

namespace {

json openapi() {
    const auto text = wr::util::embedded_file("schema/openapi.json");
    REQUIRE(text);
    return json::parse(*text);
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
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

} // namespace

TEST_CASE("api: every registered route is documented in openapi.json, and nothing else is") {
    const json document = openapi();
    CHECK(document["openapi"] == "3.0.3");
    std::set<std::pair<std::string, std::string>> registered;
    for (const wr::api::Route& route : wr::api::all_routes()) {
        registered.insert({route.pattern, lower(route.method)});
        CAPTURE(route.pattern);
        CAPTURE(route.method);
        REQUIRE(document["paths"].contains(route.pattern));
        REQUIRE(document["paths"][route.pattern].contains(lower(route.method)));
        const json& operation = document["paths"][route.pattern][lower(route.method)];
        // Public routes say so; every other route needs the bearer token.
        if (route.access == wr::api::Access::public_access)
            CHECK(operation["security"] == json::array());
        else
            CHECK(operation["security"] == json::array({{{"bearer", json::array()}}}));
    }
    for (const auto& [path, operations] : document["paths"].items())
        for (const auto& [method, operation] : operations.items()) {
            CAPTURE(path);
            CAPTURE(method);
            CHECK(registered.contains({path, method}));
        }
}

TEST_CASE("api: every $ref in openapi.json resolves") {
    const json document = openapi();
    std::set<std::string> refs;
    collect_refs(document, refs);
    CHECK(refs.size() > 20);
    for (const std::string& ref : refs) {
        CAPTURE(ref);
        REQUIRE(ref.starts_with("#/"));
        const json::json_pointer pointer(ref.substr(1));
        CHECK(document.contains(pointer));
    }
}

TEST_SUITE("integration") {

TEST_CASE("integration: the admin API serves its OpenAPI document to token holders") {
    wr::test::TestServer wr;
    CHECK(wr.send("GET", "/client/v4/openapi.json", "", {}).status == 401);
    const auto reply = wr.get("/client/v4/openapi.json");
    CHECK(reply.status == 200);
    CHECK(reply.body == openapi());
}

} // TEST_SUITE
