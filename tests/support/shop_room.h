#pragma once
// The room most edge tests stand in front of: zone example.com, room "shop" on shop.example.com.
#include <memory>
#include <string>
#include <vector>

#include "support/browser.h"
#include "support/process.h"
#include "support/shop_paths.h"
#include "support/test_server.h"

namespace wr::test {

// The zone in front of `origin` and the shop room (200 active, 200 new per minute, overridden
// by `room_fields`), live on the edge when this returns.
void set_up_shop(TestServer& wr, const TestOrigin& origin, nlohmann::json room_fields = nlohmann::json::object());
void set_up_shop(TestServer& wr, const StreamOrigin& origin, nlohmann::json room_fields = nlohmann::json::object());
void set_up_shop(TestServer& wr, const std::string& origin_url, nlohmann::json room_fields);

// PATCHes the shop room and waits for the edge to see it.
void patch_shop(TestServer& wr, const nlohmann::json& fields);

// `count` new browsers, each admitted to the shop on `path`.
std::vector<std::unique_ptr<Browser>> fill_shop(TestServer& wr, int count, const std::string& path = "/");

} // namespace wr::test
