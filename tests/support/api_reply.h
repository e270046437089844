#pragma once
// What the admin API's dispatcher answered, read back as JSON: the tests that call it without
// sockets judge its replies by these.
#include <nlohmann/json.hpp>

#include "api/request.h"

namespace wr::test {

// The reply's body as JSON; fails the test when it has none.
nlohmann::json body_of(const api::Reply& reply);

// The one error of an error reply: {code, message}.
nlohmann::json error_of(const api::Reply& reply);

} // namespace wr::test
