// Observes rooms and nodes, queues notifications, and delivers them in the background.
#include "notify/notification_service.h"

#include <map>
#include <set>

#include "control/notifications.h"
#include "control/status.h"
#include "model/schedule.h"
#include "notify/webhook_client.h"
#include "store/events_store.h"
#include "store/notifications_store.h"
#include "store/rooms_store.h"
#include "store/zones_store.h"
#include "util/log.h"
#include "util/secure.h"

namespace wr::notify {
namespace {

constexpr int64_t k_sends_per_round = 32;
constexpr auto k_delivery_retention = std::chrono::days{30};

bool is_wait_kind(model::NotificationKind kind) {
    return kind == model::NotificationKind::wait_above_threshold || kind == model::NotificationKind::wait_below_threshold;
}

nlohmann::json room_figures(const control::RoomStatus& status, const model::LiveFigures& live) {
    return {{"status", status.status},
            {"queued_users", live.queued_users},
            {"active_users", live.active_users},
            {"max_estimated_time_minutes", live.max_estimated_minutes},
            {"total_active_users_limit", live.total_active_users_limit},
            {"new_users_per_minute_limit", live.new_users_per_minute_limit}};
}

// A destination that is turned off gets nothing more: what it still had queued is not sent when it
// comes due but marked failed. A test is queued on request for one destination, disabled or not
// (to check it before turning it on), and is sent.
bool held_back(const model::Delivery& delivery, const model::Destination& destination) {
    return !destination.settings.enabled && delivery.kind != model::NotificationKind::test;
}

void mark_not_sent(model::Delivery& delivery) {
    delivery.status = model::DeliveryStatus::failed;
    delivery.next_attempt_on.reset();
    delivery.last_error = "not sent: the destination is disabled";
}

} // namespace

NotificationService::NotificationService(store::Database& database, const model::LiveStatus* live, const util::Clock& clock,
                                         NotificationOptions options)
    : m_database(database), m_live(live), m_clock(clock), m_options(options), m_detector(DetectorSettings{options.settle, {}}) {}

NotificationService::~NotificationService() { stop(); }

void NotificationService::start() {
    m_observer = std::thread([this] { observe_loop(); });
    m_sender = std::thread([this] { send_loop(); });
}

void NotificationService::stop() {
    {
        std::lock_guard lock(m_wake_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_observer.joinable()) m_observer.join();
    if (m_sender.joinable()) m_sender.join();
}

void NotificationService::notify(model::NotificationKind kind, const std::string& room_id, nlohmann::json figures) {
    Raised raised{kind, room_id, std::move(figures), m_clock.now()};
    std::lock_guard lock(m_raised_mutex);
    if (m_raised.size() >= k_max_raised) {
        m_raised.pop_front();
        ++m_dropped;
    }
    m_raised.push_back(std::move(raised));
}

void NotificationService::wake_sender() {
    {
        std::lock_guard lock(m_wake_mutex);
        m_send_now = true;
    }
    m_wake.notify_all();
}

void NotificationService::observe_loop() {
    std::unique_lock lock(m_wake_mutex);
    while (!m_wake.wait_for(lock, m_options.observe_interval, [this] { return m_stopping; })) {
        lock.unlock();
        try {
            observe();
        } catch (const std::exception& error) {
            util::log_error("notifications", std::string("observing the rooms failed: ") + error.what());
        }
        lock.lock();
    }
}

void NotificationService::send_loop() {
    std::unique_lock lock(m_wake_mutex);
    while (true) {
        m_wake.wait_for(lock, m_options.send_poll_interval, [this] { return m_stopping || m_send_now; });
        if (m_stopping) return;
        m_send_now = false;
        lock.unlock();
        try {
            send_due();
        } catch (const std::exception& error) {
            util::log_error("notifications", std::string("sending notifications failed: ") + error.what());
        }
        lock.lock();
    }
}

Observation NotificationService::observation(util::TimePoint now, std::set<int64_t>& thresholds,
                                             std::map<std::string, std::pair<std::string, std::string>>& room_zones) {
    struct RoomConfig {
        model::Room room;
        model::Zone zone;
        std::vector<model::Event> events;
    };
    // The configuration in one read; the live figures after it, with no database lock held.
    std::vector<RoomConfig> rooms;
    m_database.read([&](store::Connection& connection) {
        for (const model::Zone& zone : store::list_zones(connection, {0, -1}))
            for (model::Room& room : store::list_rooms(connection, zone.id, {0, -1})) {
                std::vector<model::Event> events = store::all_events(connection, room.id);
                rooms.push_back({std::move(room), zone, std::move(events)});
            }
        for (const model::Destination& destination : store::list_destinations(connection))
            if (destination.settings.enabled && (destination.settings.wants(model::NotificationKind::wait_above_threshold) ||
                                                 destination.settings.wants(model::NotificationKind::wait_below_threshold)))
                thresholds.insert(destination.settings.wait_threshold_minutes);
    });
    Observation observation;
    observation.now = now;
    for (const RoomConfig& config : rooms) {
        const model::LiveFigures live = m_live ? m_live->figures(config.room.id, now) : model::LiveFigures{};
        const control::RoomStatus status = control::room_status(config.room, config.events, live, std::nullopt, now);
        RoomObservation& room = observation.rooms.emplace_back();
        room.room_id = config.room.id;
        room.room_name = config.room.settings.name;
        room.zone_id = config.zone.id;
        room.zone_name = config.zone.settings.name;
        room.queueing = status.status == "queueing" || status.status == "event_prequeueing";
        room.max_wait_minutes = live.max_estimated_minutes;
        room.event_id = status.event_id;
        if (const model::Event* event = model::active_event(config.events, now)) room.event_name = event->settings.name;
        room.figures = room_figures(status, live);
        room_zones[room.room_id] = {room.zone_id, room.zone_name};
    }
    if (m_live)
        for (const model::NodeStatus& node : m_live->nodes("", now))
            observation.nodes.push_back({node.node, node.state_connected, node.condition != "stale"});
    return observation;
}

void NotificationService::observe() {
    std::lock_guard observing(m_observe_mutex);
    const util::TimePoint now = m_clock.now();
    std::set<int64_t> thresholds;
    std::map<std::string, std::pair<std::string, std::string>> room_zones;
    const Observation seen = observation(now, thresholds, room_zones);
    m_detector.set_wait_thresholds(thresholds);

    std::vector<model::Notification> notifications;
    for (Detected& detected : m_detector.observe(seen)) {
        model::Notification notification;
        notification.kind = detected.kind;
        notification.time = now;
        notification.zone_id = std::move(detected.zone_id);
        notification.zone_name = std::move(detected.zone_name);
        notification.room_id = std::move(detected.room_id);
        notification.room_name = std::move(detected.room_name);
        notification.node = std::move(detected.node);
        notification.threshold_minutes = detected.threshold_minutes;
        notification.figures = std::move(detected.figures);
        notifications.push_back(std::move(notification));
    }
    // What other parts raised: the room's names from this observation.
    std::deque<Raised> raised;
    uint64_t dropped = 0;
    {
        std::lock_guard lock(m_raised_mutex);
        raised.swap(m_raised);
        std::swap(dropped, m_dropped);
    }
    if (dropped > 0) util::log_warn("notifications", std::to_string(dropped) + " raised notification(s) dropped: too many at once");
    for (Raised& item : raised) {
        model::Notification notification;
        notification.kind = item.kind;
        notification.time = item.time;
        notification.room_id = item.room_id;
        for (const RoomObservation& room : seen.rooms)
            if (room.room_id == item.room_id) {
                notification.room_name = room.room_name;
                notification.zone_id = room.zone_id;
                notification.zone_name = room.zone_name;
            }
        notification.figures = std::move(item.figures);
        notifications.push_back(std::move(notification));
    }
    if (notifications.empty()) return;

    size_t queued = 0;
    m_database.record([&](store::Connection& connection) {
        for (model::Notification& notification : notifications) {
            notification.id = util::new_id();
            if (is_wait_kind(notification.kind) && notification.threshold_minutes == 0) continue;
            queued += control::enqueue_notification(connection, notification);
        }
    });
    for (const model::Notification& notification : notifications)
        util::log_info("notifications", std::string(model::kind_name(notification.kind)) +
                                            (notification.room_name.empty() ? "" : " " + notification.zone_name + "/" + notification.room_name) +
                                            (notification.node.empty() ? "" : " node " + notification.node));
    if (queued > 0) wake_sender();
}

void NotificationService::send_due() {
    std::lock_guard sending(m_send_mutex);
    const util::TimePoint now = m_clock.now();
    struct Due {
        model::Delivery delivery;
        std::string url;
        std::string secret;
    };
    std::vector<Due> due;
    std::vector<model::Delivery> not_sent;
    m_database.read([&](store::Connection& connection) {
        for (model::Delivery& delivery : store::due_deliveries(connection, now, k_sends_per_round)) {
            const auto destination = store::find_destination(connection, delivery.destination_id);
            if (!destination) continue;
            if (held_back(delivery, *destination))
                not_sent.push_back(std::move(delivery));
            else
                due.push_back({std::move(delivery), destination->settings.url, destination->settings.secret});
        }
    });
    if (!not_sent.empty())
        m_database.record([&](store::Connection& connection) {
            for (model::Delivery& delivery : not_sent) {
                mark_not_sent(delivery);
                store::update_delivery(connection, delivery);
            }
        });
    // A receiver that did not answer is not tried again until the next attempt of the delivery it
    // did not answer: its other due deliveries wait with that one (their own attempts uncounted).
    // A dead receiver costs one timeout per retry, not one per delivery, and its backlog (oldest
    // first, it would fill every round's batch) never holds up other receivers'.
    std::erase_if(m_unanswered, [&](const auto& entry) { return entry.second <= now; });
    for (Due& item : due) {
        model::Delivery& delivery = item.delivery;
        // (A test is always tried: an operator asked for it now, to see whether the receiver is back.)
        const auto retry = delivery.kind == model::NotificationKind::test ? m_unanswered.end() : m_unanswered.find(delivery.destination_id);
        if (retry != m_unanswered.end()) {
            if (!delivery.next_attempt_on || *delivery.next_attempt_on < retry->second) {
                delivery.next_attempt_on = retry->second;
                m_database.record([&](store::Connection& connection) { store::update_delivery(connection, delivery); });
            }
            continue;
        }
        // Each attempt is signed at its own time: a receiver can refuse old timestamps (replays).
        const util::TimePoint attempt = m_clock.now();
        const int64_t timestamp = std::chrono::duration_cast<std::chrono::seconds>(attempt.time_since_epoch()).count();
        const Headers headers{{std::string(k_id_header), delivery.notification_id},
                              {std::string(k_kind_header), std::string(model::kind_name(delivery.kind))},
                              {std::string(k_timestamp_header), std::to_string(timestamp)},
                              {std::string(k_signature_header), signature(item.secret, timestamp, delivery.payload)},
                              {"User-Agent", "wr-notifications"}};
        const PostOutcome outcome = post_webhook(item.url, headers, delivery.payload, m_options.send_timeout);
        ++delivery.attempts;
        delivery.last_attempt_on = attempt;
        delivery.last_status = outcome.status;
        delivery.last_error = outcome.error;
        if (outcome.delivered()) {
            delivery.status = model::DeliveryStatus::delivered;
            delivery.delivered_on = m_clock.now();
            delivery.next_attempt_on.reset();
        } else {
            delivery.next_attempt_on = next_attempt(m_options.retry, delivery.created_on, delivery.attempts, m_clock.now());
            // (One given up on has no next attempt: the others wait the first retry's delay.)
            if (!outcome.status && delivery.kind != model::NotificationKind::test)
                m_unanswered.emplace(delivery.destination_id, delivery.next_attempt_on.value_or(m_clock.now() + m_options.retry.first_delay));
            if (!delivery.next_attempt_on) {
                delivery.status = model::DeliveryStatus::failed;
                util::log_warn("notifications", "gave up delivering " + std::string(model::kind_name(delivery.kind)) + " to " + item.url +
                                                    " after " + std::to_string(delivery.attempts) + " attempts: " + outcome.error);
            }
        }
        m_database.record([&](store::Connection& connection) { store::update_delivery(connection, delivery); });
    }
    // Once an hour, finished deliveries older than the retention go.
    const int64_t hour = std::chrono::floor<std::chrono::hours>(now.time_since_epoch()).count();
    if (hour != m_last_prune_hour) {
        m_database.record([&](store::Connection& connection) { store::prune_deliveries(connection, now - k_delivery_retention); });
        m_last_prune_hour = hour;
    }
}

} // namespace wr::notify
