#pragma once
// The control node's address as --control-url takes it: http(s)://HOST[:PORT], nothing after
// the authority but an optional "/". Pure.
#include <optional>
#include <string>
#include <string_view>

namespace wr::fleet {

struct ControlUrl {
    bool https = false;
    std::string host; // without brackets
    int port = 0;     // the scheme's default when the URL has none

    // "https://control.example.net:9090", the form the HTTP client takes.
    std::string text() const;
};

std::optional<ControlUrl> parse_control_url(std::string_view text);

// 127.0.0.0/8, ::1 and localhost: where plain HTTP never leaves the machine.
bool is_loopback_host(std::string_view host);

} // namespace wr::fleet
