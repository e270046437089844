// Routing rooms by host and longest path, and the phases of a room's schedule.
#include <doctest/doctest.h>

#include "edge/edge_config.h"
#include "origin/registry.h"
#include "support/test_server.h"
#include "support/timestamps.h"

using namespace std::chrono_literals;
using wr::edge::EdgeConfig;
using wr::edge::RoomConfig;
using wr::test::at;

namespace {

RoomConfig& add_room(EdgeConfig& config, const char* id, const char* host, const char* path) {
    auto room = std::make_unique<RoomConfig>();
    room->id = id;
    room->zone = config.zones.front().get();
    room->settings.host = host;
    room->settings.path = path;
    room->settings.total_active_users = 1000;
    room->settings.new_users_per_minute = 500;
    config.rooms.push_back(std::move(room));
    return *config.rooms.back();
}

} // namespace

TEST_CASE("edge: the longest matching route wins, additional routes included") {
    EdgeConfig config;
    auto zone = std::make_unique<wr::edge::ZoneConfig>();
    zone->name = "example.com";
    config.zones.push_back(std::move(zone));
    add_room(config, "root", "example.com", "/");
    add_room(config, "shop", "example.com", "/shop");
    RoomConfig& checkout = add_room(config, "checkout", "Shop.Example.com", "/");
    checkout.settings.additional_routes.push_back({"example.com", "/shop/checkout"});
    config.index();

    CHECK(config.find_room("example.com", "/")->id == "root");
    CHECK(config.find_room("example.com", "/shopping")->id == "shop"); // a plain prefix
    CHECK(config.find_room("example.com", "/shop/checkout/pay")->id == "checkout");
    CHECK(config.find_room("shop.example.com", "/x")->id == "checkout");
    CHECK(config.find_room("www.example.com", "/") == nullptr);
    CHECK(config.find_zone("shop.example.com")->name == "example.com"); // a room's host
    CHECK(config.find_zone("www.example.com") == nullptr);                // under the zone, but never named
    CHECK(config.find_zone("example.org") == nullptr);
    CHECK(config.find_zone("notexample.com") == nullptr);
    CHECK(config.find_room_by_id("shop")->settings.path == "/shop");
}

TEST_CASE("edge: a zone serves its name, its rooms' hosts and routes, and the hosts it lists, wildcards included") {
    EdgeConfig config;
    auto zone = std::make_unique<wr::edge::ZoneConfig>();
    zone->name = "example.com";
    zone->hosts = {"www.example.com", "*.cdn.example.com"};
    config.zones.push_back(std::move(zone));
    RoomConfig& shop = add_room(config, "shop", "shop.example.com", "/");
    shop.settings.additional_routes.push_back({"pay.example.com", "/checkout"});
    config.index();

    for (const char* served : {"example.com", "shop.example.com", "pay.example.com", "www.example.com", "a.cdn.example.com",
                               "b.a.cdn.example.com"}) {
        CAPTURE(served);
        REQUIRE(config.find_zone(served));
        CHECK(config.find_zone(served)->name == "example.com");
    }
    for (const char* refused : {"x.example.com", "x.shop.example.com", "cdn.example.com", "wwwexample.com", "x.www.example.com"}) {
        CAPTURE(refused);
        CHECK(config.find_zone(refused) == nullptr);
    }
}

TEST_CASE("edge: a host belongs to the most specific zone, whatever a less specific one lists or routes") {
    EdgeConfig config;
    auto parent = std::make_unique<wr::edge::ZoneConfig>();
    parent->name = "example.com";
    parent->hosts = {"*.example.com", "www.sub.example.com", "*.deep.sub.example.com"};
    config.zones.push_back(std::move(parent));
    auto sub = std::make_unique<wr::edge::ZoneConfig>();
    sub->name = "sub.example.com";
    sub->hosts = {"*.pay.sub.example.com"};
    config.zones.push_back(std::move(sub));
    // A room of the parent zone on a host of the nested one, as a database written before
    // hosts had owners may hold: it must not take that host's traffic.
    add_room(config, "stale", "pay.sub.example.com", "/");
    add_room(config, "shop", "shop.example.com", "/");
    config.index();

    const auto zone_of = [&](const char* host) {
        const wr::edge::ZoneConfig* zone = config.find_zone(host);
        return zone ? zone->name : std::string("(421)");
    };
    CHECK(zone_of("shop.example.com") == "example.com");
    CHECK(zone_of("x.example.com") == "example.com");            // the parent's wildcard
    CHECK(zone_of("sub.example.com") == "sub.example.com");
    CHECK(zone_of("a.pay.sub.example.com") == "sub.example.com"); // its own wildcard
    CHECK(zone_of("pay.sub.example.com") == "(421)");             // the nested zone's, which does not serve it
    CHECK(zone_of("x.sub.example.com") == "(421)");               // not the parent's *.example.com
    CHECK(zone_of("www.sub.example.com") == "(421)");
    CHECK(zone_of("a.deep.sub.example.com") == "(421)");
    CHECK(config.find_room("pay.sub.example.com", "/") == nullptr);
    CHECK(config.find_room("shop.example.com", "/")->id == "shop");
}

TEST_CASE("edge: a room's schedule becomes phases with the event's settings") {
    RoomConfig room;
    room.settings.total_active_users = 1000;
    room.settings.new_users_per_minute = 500;
    room.settings.custom_page_html = "room page";
    const auto start = wr::test::k_test_start;
    wr::model::Event event;
    event.id = "00000000000000010000000000000000";
    event.settings.name = "launch";
    event.settings.prequeue_start_time = at(start + 10min);
    event.settings.event_start_time = at(start + 20min);
    event.settings.event_end_time = at(start + 60min);
    event.settings.shuffle_at_event_start = true;
    event.settings.total_active_users = 300;
    event.settings.new_users_per_minute = 200;
    event.settings.queueing_method = wr::model::QueueingMethod::random;
    event.settings.custom_page_html = "event page";
    room.events.push_back(event);
    wr::model::Event suspended = event;
    suspended.settings.suspended = true;
    suspended.settings.event_start_time = at(start + 2h);
    suspended.settings.event_end_time = at(start + 3h);
    suspended.settings.prequeue_start_time.reset();
    room.events.push_back(suspended);
    wr::edge::build_phases(room);

    CHECK(room.schedule.phases.size() == 2);
    CHECK(room.phase_at(start).event_id.empty());
    CHECK(*room.phase_at(start).custom_page_html == "room page");
    const auto& prequeue = room.phase_at(start + 15min);
    CHECK(prequeue.prequeueing);
    CHECK(prequeue.policy.queue_all);
    CHECK(prequeue.policy.total_active_users == 300);
    CHECK(*prequeue.custom_page_html == "event page");
    const auto& running = room.phase_at(start + 20min);
    CHECK_FALSE(running.prequeueing);
    CHECK(running.policy.method == wr::model::QueueingMethod::random);
    REQUIRE(running.policy.shuffle);
    CHECK(running.policy.shuffle->prequeue_start == start + 10min);
    CHECK(running.policy.shuffle->event_key == 1);
    CHECK(room.phase_at(start + 60min).event_id.empty());
    CHECK(room.phase_at(start + 150min).event_id.empty()); // the suspended event is ignored
}

TEST_CASE("edge: a configuration document compiles into a snapshot the edge can route") {
    wr::model::ConfigDocument document;
    wr::model::ZoneDocument& zone = document.zones.emplace_back();
    zone.zone.id = "z1";
    zone.zone.settings = {"example.com", "http://127.0.0.1:3000"};
    zone.zone.settings.max_origin_connections = 64;
    zone.zone.settings.origin_queue_timeout_seconds = 25;
    zone.room_settings.search_engine_crawler_bypass = true;
    wr::model::RoomDocument& room = zone.rooms.emplace_back();
    room.room.id = "r1";
    room.room.settings.host = "example.com";
    room.room.settings.path = "/shop";
    room.room.settings.cookie_suffix = "shop";
    room.room.settings.total_active_users = 100;
    room.room.settings.new_users_per_minute = 50;
    room.room.settings.origin_guard = {.enabled = true, .target_ttfb_ms = 250, .max_error_rate = 0.02, .min_new_users_per_minute = 10};
    wr::model::Rule rule;
    rule.id = "rule1";
    rule.settings.expression = R"(starts_with(http.request.uri.path, "/shop/static/"))";
    room.rules.push_back(rule);

    const auto config = wr::edge::build_edge_config(document);
    REQUIRE(config->zones.size() == 1);
    CHECK(config->zones[0]->origin.port == 3000);
    CHECK(config->zones[0]->search_engine_crawler_bypass);
    REQUIRE(config->zones[0]->upstream != nullptr);
    CHECK(config->zones[0]->upstream->cap->limit() == 64);
    CHECK(config->zones[0]->upstream->queue_timeout == std::chrono::seconds{25});
    const RoomConfig* found = config->find_room("example.com", "/shop/cart");
    REQUIRE(found != nullptr);
    CHECK(found->id == "r1");
    CHECK(found->zone == config->zones[0].get());
    CHECK(found->cookie_name == "__cfwaitingroom_shop");
    CHECK(found->bypass_rules.size() == 1);
    CHECK(found->origin_guard() == room.room.settings.origin_guard);
    CHECK(found->phase_at(wr::util::TimePoint{}).policy.total_active_users == 100);
    CHECK(config->find_room("example.com", "/") == nullptr);
}
