// Admin API replies read back as JSON.
#include "support/api_reply.h"

#include <doctest/doctest.h>

namespace wr::test {

nlohmann::json body_of(const api::Reply& reply) {
    REQUIRE(reply.raw_body);
    return nlohmann::json::parse(*reply.raw_body);
}

nlohmann::json error_of(const api::Reply& reply) {
    const nlohmann::json body = body_of(reply);
    REQUIRE(body["errors"].size() == 1);
    return body["errors"][0];
}

} // namespace wr::test
