#pragma once
// "host:port" listen addresses, as the flags take them: "127.0.0.1:9090", "[::1]:9090", ":8080".
#include <optional>
#include <string>
#include <string_view>

namespace wr::util {

struct ListenAddress {
    std::string host; // without brackets
    int port = 0;

    std::string text() const; // "127.0.0.1:9090", "[::1]:9090"
};

std::optional<ListenAddress> parse_listen_address(std::string_view text);

} // namespace wr::util
