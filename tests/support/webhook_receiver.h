#pragma once
// A notification receiver for the integration tests, on a 127.0.0.1 port.
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "util/secure.h"

namespace wr::test {

inline const std::string k_webhook_secret = "s3cret-for-the-receiver-0123";

// A webhook receiver as docs/observability.md describes one: it checks the signature over
// "timestamp.body" with k_webhook_secret, drops a delivery whose id it has seen, and answers 500
// to the first `failures` attempts.
class WebhookReceiver {
public:
    // `delay`: how long it takes before it answers each attempt (after recording it).
    explicit WebhookReceiver(int failures = 0, std::chrono::milliseconds delay = std::chrono::milliseconds{0}) : m_failures(failures), m_delay(delay) {
        m_server.Post("/hook", [this](const httplib::Request& request, httplib::Response& response) {
            if (m_delay > std::chrono::milliseconds{0}) {
                record_arrival();
                std::this_thread::sleep_for(m_delay);
            }
            std::lock_guard lock(m_mutex);
            Delivery delivery;
            delivery.id = request.get_header_value("Wr-Webhook-Id");
            delivery.kind = request.get_header_value("Wr-Webhook-Kind");
            const std::string timestamp = request.get_header_value("Wr-Webhook-Timestamp");
            const std::string expected = "v1=" + wr::util::hmac_sha256_hex(k_webhook_secret, timestamp + "." + request.body);
            delivery.signed_well = wr::util::constant_time_equal(request.get_header_value("Wr-Webhook-Signature"), expected);
            delivery.body = nlohmann::json::parse(request.body, nullptr, false);
            m_attempts.push_back(delivery);
            if (m_failures > 0) {
                --m_failures;
                response.status = 500;
                return;
            }
            if (delivery.signed_well && m_seen.insert(delivery.id).second) m_events.push_back(delivery);
            response.status = 204;
        });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
        while (!m_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
    ~WebhookReceiver() {
        m_server.stop();
        m_thread.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port) + "/hook"; }

    struct Delivery {
        std::string id, kind;
        bool signed_well = false;
        nlohmann::json body;
    };
    // Attempts that arrived, answered or not yet.
    int arrivals() {
        std::lock_guard lock(m_mutex);
        return m_arrivals;
    }
    std::vector<Delivery> attempts() {
        std::lock_guard lock(m_mutex);
        return m_attempts;
    }
    // Each notification once, as a receiver that drops repeats keeps them.
    std::vector<Delivery> events() {
        std::lock_guard lock(m_mutex);
        return m_events;
    }

private:
    void record_arrival() {
        std::lock_guard lock(m_mutex);
        ++m_arrivals;
    }

    httplib::Server m_server;
    std::thread m_thread;
    int m_port = 0;
    std::mutex m_mutex;
    int m_failures;
    std::chrono::milliseconds m_delay;
    int m_arrivals = 0;
    std::vector<Delivery> m_attempts;
    std::vector<Delivery> m_events;
    std::set<std::string> m_seen;
};

} // namespace wr::test
