// Which zone a host belongs to: the one whose domain holds it most closely.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "model/host_owner.h"

TEST_CASE("model::owning_zone_name is the zone whose name is the host or its nearest parent domain") {
    const std::set<std::string, std::less<>> zones{"example.com", "sub.example.com", "example.org"};
    const auto is_zone = [&](std::string_view name) { return zones.contains(name); };
    struct Case {
        const char* host;
        const char* owner; // "" for none
    };
    const Case cases[] = {
        {"example.com", "example.com"},
        {"shop.example.com", "example.com"},
        {"sub.example.com", "sub.example.com"},
        {"pay.sub.example.com", "sub.example.com"},
        {"a.b.pay.sub.example.com", "sub.example.com"},
        {"xsub.example.com", "example.com"}, // a label boundary, not a string suffix
        {"notexample.com", ""},
        {"www.example.org", "example.org"},
        {"com", ""},
        {"", ""},
    };
    for (const Case& c : cases) {
        CAPTURE(c.host);
        const auto owner = wr::model::owning_zone_name(c.host, is_zone);
        CHECK(std::string(owner.value_or("")) == c.owner);
    }
}
