// The sender on a real database, with a receiver on 127.0.0.1 and the service's clock virtual: a
// disabled destination's queued deliveries are not sent.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "control/notifications.h"
#include "notify/notification_service.h"
#include "store/migrate.h"
#include "store/notifications_store.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/webhook_receiver.h"
#include "util/secure.h"

using namespace std::chrono_literals;
using wr::model::Delivery;
using wr::model::DeliveryStatus;
using wr::model::Destination;
using wr::store::Connection;

namespace {

// A database with destinations, and the notification service's sender over it (not started:
// each test runs its rounds with send_due()).
struct SenderBench {
    wr::test::TempDir dir;
    wr::store::Database database{dir.path()};
    wr::util::FakeClock clock{wr::test::k_test_start};
    std::unique_ptr<wr::notify::NotificationService> service;

    SenderBench() {
        wr::store::migrate(database);
        service = std::make_unique<wr::notify::NotificationService>(database, nullptr, clock, wr::notify::NotificationOptions{});
    }

    Destination add_destination(const std::string& name, const std::string& url) {
        wr::model::DestinationSettings settings;
        settings.name = name;
        settings.url = url;
        settings.secret = wr::test::k_webhook_secret;
        return database.write([&](Connection& c) { return wr::control::create_destination(c, clock.now(), settings); });
    }
    void disable(const Destination& destination) {
        wr::model::DestinationSettings settings = destination.settings;
        settings.enabled = false;
        database.write([&](Connection& c) { return wr::control::update_destination(c, clock.now(), destination, settings); });
    }
    // A node event, for every destination that wants it.
    void raise_node_event() {
        wr::model::Notification notification;
        notification.id = wr::util::new_id();
        notification.kind = wr::model::NotificationKind::node_state_lost;
        notification.time = clock.now();
        notification.node = "edge-1";
        database.write([&](Connection& c) { return wr::control::enqueue_notification(c, notification); });
    }
    std::vector<Delivery> deliveries(const Destination& destination) {
        return database.read([&](Connection& c) { return wr::store::list_deliveries(c, destination.id, {0, -1}); });
    }
};

} // namespace

TEST_CASE("notify::NotificationService sends nothing more to a disabled destination, but a test") {
    SenderBench bench;
    wr::test::WebhookReceiver receiver;
    const Destination ops = bench.add_destination("ops", receiver.url());
    bench.raise_node_event();
    bench.disable(ops);
    bench.service->send_due();
    CHECK(receiver.attempts().empty());
    std::vector<Delivery> deliveries = bench.deliveries(ops);
    REQUIRE(deliveries.size() == 1);
    CHECK(deliveries[0].status == DeliveryStatus::failed);
    CHECK(deliveries[0].attempts == 0);
    CHECK(deliveries[0].last_error == "not sent: the destination is disabled");
    CHECK_FALSE(deliveries[0].next_attempt_on);

    // Disabled, it gets no new deliveries; a test it asks for is sent.
    bench.raise_node_event();
    CHECK(bench.deliveries(ops).size() == 1);
    bench.database.write([&](Connection& c) { return wr::control::enqueue_test(c, bench.clock.now(), ops); });
    bench.service->send_due();
    REQUIRE(receiver.events().size() == 1);
    CHECK(receiver.events()[0].kind == "test");
}
