// Notifications end to end: a local receiver checks every signature, refuses the first attempts
// (the retries come, spaced by the back-off, on the server's fake clock), and sees each event
// once — on one node, across a restart, and from a control node with two edges; and the CLI's
// side: create, test, deliveries, export and apply without secrets in the clear.
#include <doctest/doctest.h>

#include <httplib.h>
#include <mutex>
#include <set>
#include <thread>

#include "notify/notification_service.h"
#include "support/browser.h"
#include "support/eventually.h"
#include "support/fleet_nodes.h"
#include "support/process.h"
#include "support/shop_room.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/webhook_receiver.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::test::eventually;
using wr::test::TestServer;

namespace {

const std::string k_secret = wr::test::k_webhook_secret;
using Receiver = wr::test::WebhookReceiver;

std::function<void(wr::AppOptions&)> notifications_at_once() {
    return [](wr::AppOptions& options) { options.notification_settle = 0ms; };
}

json destination(const Receiver& receiver, json kinds = json::array()) {
    return {{"name", "ops"}, {"url", receiver.url()}, {"secret", k_secret}, {"kinds", std::move(kinds)}};
}

json deliveries(TestServer& wr) {
    const auto reply = wr.get("/client/v4/notifications/destinations/ops/deliveries");
    REQUIRE_MESSAGE(reply.status == 200, reply.text);
    return reply.body["result"];
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: a room that starts queueing is announced once, signed, and retried with back-off until the receiver takes it") {
    Receiver receiver(2);
    wr::test::TestOrigin origin;
    TestServer wr({}, notifications_at_once());
    REQUIRE(wr.post("/client/v4/notifications/destinations", destination(receiver, {"room.queueing_started", "room.queueing_stopped"})).status == 200);
    wr::test::set_up_shop(wr, origin);
    wr::notify::NotificationService& service = *wr.app().notifications();
    service.observe(); // the room as it is: nothing to announce
    wr::test::patch_shop(wr, {{"queue_all", true}});
    service.observe();

    // The first attempt at once (500), the next 10 s later on the server's clock (500), then 20 s.
    REQUIRE(eventually([&] { return receiver.attempts().size() == 1; }));
    REQUIRE(eventually([&] { return deliveries(wr)[0]["attempts"] == 1; }));
    json delivery = deliveries(wr)[0];
    CHECK(delivery["status"] == "pending");
    CHECK(delivery["last_status"] == 500);
    CHECK(delivery["next_attempt_on"] == "2026-11-22T10:00:10.000Z");
    wr.clock().advance(10s);
    service.send_due();
    CHECK(receiver.attempts().size() == 2);
    CHECK(deliveries(wr)[0]["next_attempt_on"] == "2026-11-22T10:00:30.000Z");
    wr.clock().advance(19s);
    service.send_due();
    CHECK(receiver.attempts().size() == 2); // not due yet
    wr.clock().advance(1s);
    service.send_due();
    REQUIRE(receiver.attempts().size() == 3);
    delivery = deliveries(wr)[0];
    CHECK(delivery["status"] == "delivered");
    CHECK(delivery["attempts"] == 3);
    CHECK(delivery["last_status"] == 204);

    // The same notification each time, each attempt signed; one event for a receiver that drops repeats.
    for (const Receiver::Delivery& attempt : receiver.attempts()) {
        CHECK(attempt.signed_well);
        CHECK(attempt.id == receiver.attempts()[0].id);
        CHECK(attempt.kind == "room.queueing_started");
    }
    REQUIRE(receiver.events().size() == 1);
    const json body = receiver.events()[0].body;
    CHECK(body["kind"] == "room.queueing_started");
    CHECK(body["id"] == receiver.attempts()[0].id);
    CHECK(body["room"]["name"] == "shop");
    CHECK(body["zone"]["name"] == "example.com");
    CHECK(body["figures"]["status"] == "queueing");
    CHECK(body["time"] == "2026-11-22T10:00:00.000Z");

    // Stopping is announced too; nothing else was.
    wr::test::patch_shop(wr, {{"queue_all", false}});
    service.observe();
    REQUIRE(eventually([&] { return receiver.events().size() == 2; }));
    CHECK(receiver.events()[1].kind == "room.queueing_stopped");
    service.observe();
    CHECK(receiver.attempts().size() == 4);
}

TEST_CASE("integration: an event's start and end are announced as the server's clock passes them, each once") {
    Receiver receiver;
    wr::test::TestOrigin origin;
    TestServer wr({}, notifications_at_once());
    REQUIRE(wr.post("/client/v4/notifications/destinations", destination(receiver, {"event.started", "event.ended"})).status == 200);
    wr::test::set_up_shop(wr, origin);
    // The server's clock reads 2026-11-22T10:00:00Z: the event runs from 10:05 to 10:20.
    const auto created = wr.post("/client/v4/zones/example.com/waiting_rooms/shop/events",
                                 {{"name", "launch"}, {"event_start_time", "2026-11-22T10:05:00Z"}, {"event_end_time", "2026-11-22T10:20:00Z"}});
    REQUIRE_MESSAGE(created.status == 200, created.text);
    wr::notify::NotificationService& service = *wr.app().notifications();
    service.observe();
    wr.clock().advance(4min);
    service.observe();
    CHECK(receiver.attempts().empty()); // 10:04: not yet

    wr.clock().advance(1min);
    service.observe();
    REQUIRE(eventually([&] { return receiver.events().size() == 1; }));
    CHECK(receiver.events()[0].kind == "event.started");
    CHECK(receiver.events()[0].body["room"]["name"] == "shop");
    CHECK(receiver.events()[0].body["time"] == "2026-11-22T10:05:00.000Z");
    wr.clock().advance(5min);
    service.observe();

    wr.clock().advance(10min);
    service.observe();
    REQUIRE(eventually([&] { return receiver.events().size() == 2; }));
    CHECK(receiver.events()[1].kind == "event.ended");
    CHECK(receiver.events()[1].body["time"] == "2026-11-22T10:20:00.000Z");
    service.observe();
    CHECK(receiver.attempts().size() == 2); // each once
}

TEST_CASE("integration: a receiver that takes its time holds up neither the edge nor the admin API") {
    Receiver receiver(0, 3s);
    wr::test::TestOrigin origin;
    TestServer wr({}, notifications_at_once());
    REQUIRE(wr.post("/client/v4/notifications/destinations", destination(receiver, {"room.queueing_started"})).status == 200);
    wr::test::set_up_shop(wr, origin);
    wr::notify::NotificationService& service = *wr.app().notifications();
    service.observe();
    wr::test::patch_shop(wr, {{"queue_all", true}});
    service.observe();
    REQUIRE(eventually([&] { return receiver.arrivals() == 1; }));
    // The delivery is in flight for three seconds: the admin API and the edge answer meanwhile.
    const auto started = std::chrono::steady_clock::now();
    CHECK(wr.get("/client/v4/zones").status == 200);
    CHECK(wr.patch("/client/v4/zones/example.com/waiting_rooms/shop", {{"queue_all", false}}).status == 200);
    CHECK(wr::test::Browser(wr.edge_port(), "shop.example.com").get("/").status == 200);
    CHECK(std::chrono::steady_clock::now() - started < 1500ms);
    CHECK(receiver.events().empty()); // still being answered
    REQUIRE(eventually([&] { return receiver.events().size() == 1; }, 10s));
}

TEST_CASE("integration: deliveries waiting for a retry survive a restart") {
    wr::test::TempDir data;
    Receiver receiver(1);
    wr::test::TestOrigin origin;
    {
        TestServer wr(data.path(), notifications_at_once());
        REQUIRE(wr.post("/client/v4/notifications/destinations", destination(receiver)).status == 200);
        wr::test::set_up_shop(wr, origin);
        wr.app().notifications()->observe();
        wr::test::patch_shop(wr, {{"queue_all", true}});
        wr.app().notifications()->observe();
        REQUIRE(eventually([&] { return receiver.attempts().size() == 1; }));
        REQUIRE(eventually([&] { return deliveries(wr)[0]["attempts"] == 1; }));
    }
    TestServer again(data.path(), notifications_at_once());
    again.clock().advance(10s);
    again.app().notifications()->send_due();
    REQUIRE(receiver.attempts().size() == 2);
    CHECK(receiver.events().size() == 1);
    CHECK(deliveries(again)[0]["status"] == "delivered");
}

TEST_CASE("integration: wr notifications creates, tests and lists deliveries; export leaves the secret out and apply keeps it") {
    Receiver receiver;
    TestServer wr;
    const auto cli = [&](std::vector<std::string> arguments, std::map<std::string, std::string> environment = {}, const std::string& input = "") {
        arguments.insert(arguments.begin(), {"--api", wr.admin_url(), "--token", wr.admin_token()});
        return wr::test::run_wr(arguments, environment, input);
    };
    const auto created = cli({"notifications", "create", "--name", "ops", "--url", receiver.url(), "--kind", "event.started",
                              "--kind", "event.ended", "--wait-threshold", "15"},
                             {{"WR_NOTIFICATION_SECRET", k_secret}});
    REQUIRE_MESSAGE(created.exit_code == 0, created.err);
    CHECK(created.out.find(k_secret) == std::string::npos);
    const auto tested = cli({"notifications", "test", "ops"});
    CHECK_MESSAGE(tested.exit_code == 0, tested.err);
    CHECK(tested.out == "delivered: the receiver answered 204\n");
    REQUIRE(receiver.events().size() == 1);
    CHECK(receiver.events()[0].kind == "test");
    CHECK(receiver.events()[0].signed_well);
    const auto listed = cli({"notifications", "deliveries", "ops"});
    CHECK(listed.out.find("test  delivered  1") != std::string::npos);
    const auto bad = cli({"notifications", "create", "--name", "x", "--url", "ftp://example.com", "--secret", "short"});
    CHECK(bad.exit_code == 1);
    CHECK(bad.err == "wr: error: url: must be an http:// or https:// URL (host, optional port and path; no query or user info)\n"
                     "  secret: must be at least 16 characters (the receiver checks signatures with it)\n");

    // The export never holds the secret; applying it changes nothing, and the secret stays.
    const auto exported = cli({"export"});
    REQUIRE(exported.exit_code == 0);
    CHECK(exported.out.find(k_secret) == std::string::npos);
    const json document = json::parse(exported.out);
    CHECK(document["notification_destinations"] ==
          json::parse(R"j([{"enabled":true,"kinds":["event.started","event.ended"],"name":"ops","url":")j" + receiver.url() +
                      R"j(","wait_threshold_minutes":15}])j"));
    CHECK(cli({"apply", "-f", "-"}, {}, exported.out).out == "no changes\n");
    CHECK(cli({"notifications", "test", "ops"}).exit_code == 0); // still signed with the same secret
    CHECK(receiver.events().back().signed_well);

    // A new destination in a file needs its secret: from the environment, never the file.
    json more = document;
    more["notification_destinations"].push_back({{"name", "pager"}, {"url", receiver.url()}});
    const auto refused = cli({"apply", "-f", "-"}, {}, more.dump());
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.starts_with("wr: error: notification_destinations[1].secret: is required for a new destination"));
    more["notification_destinations"][1]["secret_env"] = "PAGER_SECRET";
    const auto applied = cli({"apply", "-f", "-"}, {{"PAGER_SECRET", "another-secret-of-the-pager"}}, more.dump());
    CHECK_MESSAGE(applied.exit_code == 0, applied.err);
    CHECK(applied.out == "+ create notification_destination pager\n1 change(s) applied\n");

    // The audit log says the secrets were set, never what they are.
    const auto audit = wr.get("/client/v4/audit_logs?type=notification_destination");
    const std::string log = audit.text;
    REQUIRE(audit.body["result"].size() == 2);
    for (const json& entry : audit.body["result"])
        CHECK(std::count(entry["changes"].begin(), entry["changes"].end(), json{{"field", "secret"}, {"before", nullptr}, {"after", "(changed)"}}) == 1);
    CHECK(log.find(k_secret) == std::string::npos);
    CHECK(log.find("another-secret-of-the-pager") == std::string::npos);
}

TEST_CASE("integration: wr apply sends no secret for a secret_env that is not set: a destination keeps its own, a new one is refused naming the variable") {
    Receiver receiver;
    TestServer wr;
    const auto cli = [&](std::vector<std::string> arguments, const std::string& input) {
        arguments.insert(arguments.begin(), {"--api", wr.admin_url(), "--token", wr.admin_token()});
        return wr::test::run_wr(arguments, {}, input);
    };
    REQUIRE(wr.post("/client/v4/notifications/destinations", destination(receiver)).status == 200);
    json document = json::parse(cli({"export"}, "").out);
    document["notification_destinations"][0]["secret_env"] = "WR_TEST_SECRET_NOBODY_SET";
    for (const char* dry_run : {"--dry-run", ""}) {
        CAPTURE(dry_run);
        std::vector<std::string> arguments{"apply", "-f", "-"};
        if (*dry_run) arguments.push_back(dry_run);
        const auto applied = cli(arguments, document.dump());
        CHECK_MESSAGE(applied.exit_code == 0, applied.err);
        CHECK(applied.out == "no changes\n");
    }
    REQUIRE(cli({"notifications", "test", "ops"}, "").exit_code == 0);
    CHECK(receiver.events().back().signed_well); // the secret it had

    document["notification_destinations"].push_back({{"name", "pager"}, {"url", receiver.url()}, {"secret_env", "WR_TEST_PAGER_NOBODY_SET"}});
    const auto refused = cli({"apply", "-f", "-", "--dry-run"}, document.dump());
    CHECK(refused.exit_code == 1);
    CHECK(refused.err == "wr: error: notification_destinations[1].secret: is required for a new destination, and the environment "
                         "variable WR_TEST_PAGER_NOBODY_SET named by secret_env is not set\n");
}

TEST_CASE("integration: in a control node with two edges, a room the edges fill is announced once, by the control node") {
    Receiver receiver;
    wr::test::TestOrigin origin;
    wr::test::TempDir data;
    wr::test::ControlNode control(data.path() / "control", 0, {"--notification-settle", "0s"});
    control.api("POST", "/client/v4/notifications/destinations", destination(receiver, {"room.queueing_started"}));
    control.api("POST", "/client/v4/zones", {{"name", "example.com"}, {"origin", origin.url()}});
    control.api("POST", "/client/v4/zones/example.com/waiting_rooms",
                {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}});
    const std::string token = control.api("POST", "/client/v4/tokens", {{"name", "edges"}, {"scope", "edge"}})["token"];
    wr::test::EdgeNode one(data.path() / "edge-1", "edge-1", control.url(), token, {"--edge-threads", "1"});
    wr::test::EdgeNode two(data.path() / "edge-2", "edge-2", control.url(), token, {"--edge-threads", "1"});

    // Each edge counts its own part of the room (memory state) and reports it; the control node
    // merges the reports. Edge one takes 200 visitors and queues the next; edge two serves too.
    std::vector<std::unique_ptr<wr::test::Browser>> browsers;
    const auto visit = [&](int port) {
        browsers.push_back(std::make_unique<wr::test::Browser>(port, "shop.example.com"));
        return browsers.back()->get("/");
    };
    REQUIRE(eventually([&] { return visit(one.edge_port).from_origin(); }, 10s));
    for (int i = 1; i < 200; ++i) REQUIRE(visit(one.edge_port).from_origin());
    REQUIRE(eventually([&] { return visit(two.edge_port).from_origin(); }, 10s));
    REQUIRE(visit(one.edge_port).has_header("Refresh"));
    REQUIRE(eventually([&] { return receiver.events().size() == 1; }, 15s));
    CHECK(receiver.events()[0].kind == "room.queueing_started");
    CHECK(receiver.events()[0].body["figures"]["queued_users"] == 1);
    // Two more rounds of reports later, still one: the edges send nothing themselves.
    std::this_thread::sleep_for(4s);
    CHECK(receiver.attempts().size() == 1);
}

} // TEST_SUITE
