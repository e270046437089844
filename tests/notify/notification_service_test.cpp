// The sender on a real database, with receivers on 127.0.0.1 and the service's clock virtual: a
// disabled destination's queued deliveries are not sent; an attempt ends at the send timeout
// however slowly a receiver trickles its answer; and a receiver that does not answer costs one
// timeout a round, not one per delivery.
#include <doctest/doctest.h>

#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "control/notifications.h"
#include "notify/notification_service.h"
#include "notify/webhook_client.h"
#include "store/migrate.h"
#include "store/notifications_store.h"
#include "support/loopback.h"
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

    explicit SenderBench(std::chrono::milliseconds send_timeout = 10s) {
        wr::store::migrate(database);
        wr::notify::NotificationOptions options;
        options.send_timeout = send_timeout;
        service = std::make_unique<wr::notify::NotificationService>(database, nullptr, clock, options);
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

// Answers 200 at once, then its body one byte every 50 ms for ten seconds: every read of a client
// gets something well within any read timeout, so only a deadline on the whole attempt ends it.
class TricklingReceiver {
public:
    TricklingReceiver() {
        m_server.Post("/hook", [this](const httplib::Request&, httplib::Response& response) {
            response.set_chunked_content_provider("text/plain", [this](size_t, httplib::DataSink& sink) {
                for (int i = 0; i < 200 && !m_stopping; ++i) {
                    if (!sink.write(".", 1)) return false;
                    std::this_thread::sleep_for(50ms);
                }
                sink.done();
                return true;
            });
        });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
        while (!m_server.is_running()) std::this_thread::sleep_for(1ms);
    }
    ~TricklingReceiver() {
        m_stopping = true;
        m_server.stop();
        m_thread.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port) + "/hook"; }

private:
    httplib::Server m_server;
    std::atomic<bool> m_stopping{false};
    int m_port = 0;
    std::thread m_thread;
};

// Listens and never accepts: a connection completes (the kernel's backlog) and no answer comes.
struct SilentReceiver {
    wr::test::LoopbackListener listener = wr::test::listen_on_loopback("the silent receiver");
    ~SilentReceiver() { ::close(listener.fd); }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(listener.port) + "/hook"; }
};

template <typename Work> std::chrono::milliseconds elapsed_while(Work&& work) {
    const auto started = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
}

} // namespace

TEST_CASE("notify::post_webhook gives up at the timeout however slowly the receiver trickles its answer") {
    TricklingReceiver receiver;
    wr::notify::PostOutcome outcome;
    const auto took = elapsed_while([&] { outcome = wr::notify::post_webhook(receiver.url(), {}, "{}", 300ms); });
    CHECK(took >= 250ms);
    CHECK(took < 2s); // the whole answer would take ten
    CHECK_FALSE(outcome.status);
    CHECK(outcome.error == "no answer within 300 ms");
}

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

TEST_CASE("notify::NotificationService tries a receiver that did not answer once, and its other deliveries wait with that one's retry") {
    SenderBench bench(300ms);
    SilentReceiver silent;
    wr::test::WebhookReceiver receiver;
    const Destination dead = bench.add_destination("dead", silent.url());
    const Destination ops = bench.add_destination("ops", receiver.url());
    for (int i = 0; i < 3; ++i) bench.raise_node_event();

    const auto attempts_and_due = [&] {
        std::vector<int64_t> attempts;
        std::set<int64_t> due;
        for (const Delivery& delivery : bench.deliveries(dead)) {
            CHECK(delivery.status == DeliveryStatus::pending);
            attempts.push_back(delivery.attempts);
            REQUIRE(delivery.next_attempt_on);
            due.insert(delivery.next_attempt_on->time_since_epoch().count());
        }
        std::sort(attempts.begin(), attempts.end());
        return std::pair{attempts, due};
    };
    bench.service->send_due();
    CHECK(receiver.events().size() == 3);
    auto [attempts, due] = attempts_and_due();
    CHECK(attempts == std::vector<int64_t>{0, 0, 1});
    // All three wait for the retry of the one tried (10 s later).
    CHECK(due == std::set<int64_t>{(bench.clock.now() + 10s).time_since_epoch().count()});

    // Rounds before then try none of them.
    const auto quiet = elapsed_while([&] {
        bench.service->send_due();
        bench.service->send_due();
    });
    CHECK(quiet < 250ms);
    CHECK(attempts_and_due().first == std::vector<int64_t>{0, 0, 1});
    // But a test the operator asks for meanwhile is tried at once.
    const Delivery test = bench.database.write([&](Connection& c) { return wr::control::enqueue_test(c, bench.clock.now(), dead); });
    bench.service->send_due();
    for (const Delivery& delivery : bench.deliveries(dead))
        if (delivery.id == test.id) CHECK(delivery.attempts == 1);

    // Then one of them again, and the others wait with it once more.
    bench.clock.advance(10s);
    bench.service->send_due();
    std::tie(attempts, due) = attempts_and_due();
    // The test's own retry is due then too; it is the first tried (the oldest due, tests never
    // hold the others back), then the one tried before, and the other two wait with that one.
    CHECK(attempts == std::vector<int64_t>{0, 0, 2, 2});
    CHECK(due.size() == 1);
}

TEST_CASE("notify::NotificationService: a dead receiver's backlog, larger than a round, holds up another receiver's deliveries by one timeout at most") {
    SenderBench bench(300ms);
    SilentReceiver silent;
    wr::test::WebhookReceiver receiver;
    const Destination dead = bench.add_destination("dead", silent.url());
    for (int i = 0; i < 40; ++i) bench.raise_node_event(); // before "ops" exists: for "dead" only
    const Destination ops = bench.add_destination("ops", receiver.url());
    bench.clock.advance(1s);
    bench.raise_node_event();

    // Each round takes the 32 oldest due: the first is all the dead receiver's.
    int rounds = 0;
    const auto took = elapsed_while([&] {
        while (receiver.events().empty() && rounds < 10) {
            bench.service->send_due();
            ++rounds;
        }
    });
    CHECK(receiver.events().size() == 1);
    CHECK(rounds == 2);
    CHECK(took < 1000ms); // one timeout of 300 ms in all, not one a round
    int64_t tried = 0;
    for (const Delivery& delivery : bench.deliveries(dead)) tried += delivery.attempts;
    CHECK(tried == 1);
    // Its backlog is tried again from the retry of the one it did not answer: one more timeout.
    bench.clock.advance(10s);
    bench.service->send_due();
    tried = 0;
    for (const Delivery& delivery : bench.deliveries(dead)) tried += delivery.attempts;
    CHECK(tried == 2);
}
