#include "support/shop_room.h"

#include <doctest/doctest.h>

namespace wr::test {

void set_up_shop(TestServer& wr, const TestOrigin& origin, nlohmann::json room_fields) { set_up_shop(wr, origin.url(), std::move(room_fields)); }

void set_up_shop(TestServer& wr, const StreamOrigin& origin, nlohmann::json room_fields) { set_up_shop(wr, origin.url(), std::move(room_fields)); }

void set_up_shop(TestServer& wr, const std::string& origin_url, nlohmann::json room_fields) {
    wr.create_zone("example.com", origin_url);
    nlohmann::json room = {
        {"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}};
    room.update(room_fields);
    wr.create_room("example.com", room);
    wr.sync_edge();
}

void patch_shop(TestServer& wr, const nlohmann::json& fields) {
    const auto reply = wr.patch(k_shop_path, fields);
    REQUIRE_MESSAGE(reply.status == 200, reply.text);
    wr.sync_edge();
}

std::vector<std::unique_ptr<Browser>> fill_shop(TestServer& wr, int count, const std::string& path) {
    std::vector<std::unique_ptr<Browser>> browsers;
    for (int i = 0; i < count; ++i) {
        browsers.push_back(std::make_unique<Browser>(wr.edge_port(), "shop.example.com"));
        REQUIRE(browsers.back()->get(path).from_origin());
    }
    return browsers;
}

} // namespace wr::test
