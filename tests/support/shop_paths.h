#pragma once
// The admin API paths of the room most tests use: zone example.com, room "shop".
#include <string>

namespace wr::test {

inline const std::string k_rooms = "/client/v4/zones/example.com/waiting_rooms";
inline const std::string k_shop_path = "/client/v4/zones/example.com/waiting_rooms/shop";

} // namespace wr::test
