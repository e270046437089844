#pragma once
// Notifications on the node that holds the store (all or control): an observer thread looks at
// every room and node once a second (the rooms' status from the figures this node already merges
// from every edge, so in a cluster each event is seen, and sent, once), asks the Detector what
// changed, and stores one delivery per destination in SQLite; a sender thread posts the due
// deliveries with its own HTTP client, signs them, and retries failures with exponential back-off
// for up to a day. Nothing here runs on the edge's or the admin API's threads: a slow or dead
// receiver delays only other deliveries, and a restart resumes the queue from the database.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "model/live_status.h"
#include "model/notification.h"
#include "notify/delivery_policy.h"
#include "notify/detector.h"
#include "store/database.h"
#include "util/clock.h"

namespace wr::notify {

struct NotificationOptions {
    std::chrono::milliseconds observe_interval{1000};
    std::chrono::milliseconds settle{30000};         // how long a new state must last to be announced
    RetryPolicy retry;
    std::chrono::milliseconds send_timeout{10000};    // one attempt's connect, send and answer
    std::chrono::milliseconds send_poll_interval{1000}; // how often the sender looks for due retries
};

// Raised notifications waiting for the observer (notify() is called from any thread).
inline constexpr size_t k_max_raised = 1024;

class NotificationService final : public model::Notifier {
public:
    // `live` gives the rooms' merged figures and the nodes (may be null: configuration only).
    NotificationService(store::Database& database, const model::LiveStatus* live, const util::Clock& clock, NotificationOptions options);
    ~NotificationService() override;

    void start();
    void stop();

    // Any part of wr: queues the notification for the observer's next round. Never blocks on I/O;
    // past k_max_raised waiting, the oldest are dropped (and counted).
    void notify(model::NotificationKind kind, const std::string& room_id, nlohmann::json figures) override;
    // A delivery was queued outside (a test send): the sender looks now.
    void wake_sender();

    // One round of each, now (tests, and each thread's loop).
    void observe();
    void send_due();

private:
    struct Raised {
        model::NotificationKind kind;
        std::string room_id;
        nlohmann::json figures;
        util::TimePoint time;
    };
    void observe_loop();
    void send_loop();
    Observation observation(util::TimePoint now, std::set<int64_t>& thresholds,
                            std::map<std::string, std::pair<std::string, std::string>>& room_zones);

    store::Database& m_database;
    const model::LiveStatus* m_live;
    const util::Clock& m_clock;
    NotificationOptions m_options;
    Detector m_detector;
    std::mutex m_observe_mutex; // one observation at a time (the loop, and tests calling observe())
    std::mutex m_send_mutex;    // one sending round at a time

    std::mutex m_raised_mutex; // guards m_raised and m_dropped; held only to push or swap
    std::deque<Raised> m_raised;
    uint64_t m_dropped = 0;

    std::mutex m_wake_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    bool m_send_now = false;
    int64_t m_last_prune_hour = -1;
    // Receivers that did not answer, and when they are tried again: until then their due
    // deliveries wait, untried (under m_send_mutex).
    std::map<std::string, util::TimePoint> m_unanswered;
    std::thread m_observer;
    std::thread m_sender;
};

} // namespace wr::notify
