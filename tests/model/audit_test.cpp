// The audit log's field-by-field differences, and the masking of secrets.
#include <doctest/doctest.h>

#include "model/audit.h"

using nlohmann::json;
using wr::model::AuditChange;
using wr::model::diff_fields;

namespace {

json changes(const std::vector<AuditChange>& list) { return wr::model::changes_to_json(list); }

} // namespace

TEST_CASE("model::diff_fields lists the fields that differ, nested objects field by field, in name order") {
    const json before = {{"name", "shop"}, {"total_active_users", 500}, {"cookie_attributes", {{"samesite", "auto"}, {"secure", "auto"}}},
                         {"additional_routes", json::array()}};
    const json after = {{"name", "shop"}, {"total_active_users", 1000}, {"cookie_attributes", {{"samesite", "lax"}, {"secure", "auto"}}},
                        {"additional_routes", {{{"host", "a.example.com"}, {"path", "/"}}}}};
    CHECK(changes(diff_fields(before, after)) ==
          json::parse(R"j([{"field":"additional_routes","before":[],"after":[{"host":"a.example.com","path":"/"}]},
                          {"field":"cookie_attributes.samesite","before":"auto","after":"lax"},
                          {"field":"total_active_users","before":500,"after":1000}])j"));
    CHECK(diff_fields(before, before).empty());
}

TEST_CASE("model::diff_fields lists every field of a creation (before null) and of a deletion (after null)") {
    const json object = {{"name", "launch"}, {"suspended", false}};
    CHECK(changes(diff_fields(nullptr, object)) ==
          json::parse(R"j([{"field":"name","before":null,"after":"launch"},{"field":"suspended","before":null,"after":false}])j"));
    CHECK(changes(diff_fields(object, nullptr)) ==
          json::parse(R"j([{"field":"name","before":"launch","after":null},{"field":"suspended","before":false,"after":null}])j"));
}

TEST_CASE("model::diff_fields never shows a secret's value, only that it changed") {
    const std::vector<std::string_view> secrets{"secret", "token"};
    const json before = {{"url", "https://hooks.example.com/a"}, {"secret", "s3cr3t-old"}};
    const json after = {{"url", "https://hooks.example.com/a"}, {"secret", "s3cr3t-new"}, {"token", "wr_abcdef"}};
    const json listed = changes(diff_fields(before, after, secrets));
    CHECK(listed == json::parse(R"j([{"field":"secret","before":"(changed)","after":"(changed)"},
                                    {"field":"token","before":null,"after":"(changed)"}])j"));
    CHECK(listed.dump().find("s3cr3t") == std::string::npos);
    CHECK(listed.dump().find("wr_abcdef") == std::string::npos);
    // Unchanged secrets are not listed; a secret inside a nested object is masked too.
    CHECK(diff_fields(before, before, secrets).empty());
    CHECK(changes(diff_fields(json{{"hook", {{"secret", "a"}}}}, json{{"hook", {{"secret", "b"}}}}, secrets)) ==
          json::parse(R"j([{"field":"hook.secret","before":"(changed)","after":"(changed)"}])j"));
}
