// Posts a delivery with cpp-httplib.
#include "notify/webhook_client.h"

#include <httplib.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "model/origin_url.h"
#include "net/client_error.h"

namespace wr::notify {
namespace {

// cpp-httplib's timeouts bound each read and write, not the attempt: a receiver that trickles a
// byte now and then would hold the sender (and every other destination's deliveries) for as long
// as it likes. A watchdog thread stops the client once the whole attempt has taken `timeout`.
class Deadline {
public:
    Deadline(httplib::Client& client, std::chrono::milliseconds timeout)
        : m_watchdog([this, &client, timeout] { watch(client, timeout); }) {}
    ~Deadline() { finish(); }
    Deadline(const Deadline&) = delete;
    Deadline& operator=(const Deadline&) = delete;

    // Ends the watch; true when the deadline had passed (and the client was stopped).
    bool finish() {
        {
            std::lock_guard lock(m_mutex);
            m_done = true;
        }
        m_changed.notify_all();
        if (m_watchdog.joinable()) m_watchdog.join();
        return m_expired;
    }

private:
    void watch(httplib::Client& client, std::chrono::milliseconds timeout) {
        std::unique_lock lock(m_mutex);
        if (m_changed.wait_for(lock, timeout, [this] { return m_done; })) return;
        m_expired = true;
        client.stop(); // shuts the socket down: the request in flight fails at once
    }

    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_done = false;
    bool m_expired = false;
    std::thread m_watchdog; // last: it starts once the members it uses exist
};

} // namespace

PostOutcome post_webhook(const std::string& url, const Headers& headers, const std::string& body, std::chrono::milliseconds timeout) {
    const std::optional<model::OriginUrl> target = model::parse_origin_url(url);
    if (!target) return {std::nullopt, "not an http(s) URL"};
    const std::string base = std::string(target->https ? "https://" : "http://") +
                             (target->host.find(':') != std::string::npos ? "[" + target->host + "]" : target->host) + ":" +
                             std::to_string(target->port);
    httplib::Client client(base);
    client.set_tcp_nodelay(true);
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const auto microseconds = std::chrono::duration_cast<std::chrono::microseconds>(timeout - seconds);
    client.set_connection_timeout(seconds.count(), microseconds.count());
    client.set_read_timeout(seconds.count(), microseconds.count());
    client.set_write_timeout(seconds.count(), microseconds.count());
    if (target->https) client.enable_server_certificate_verification(true);
    httplib::Headers sent;
    for (const auto& [name, value] : headers) sent.emplace(name, value);
    const std::string path = target->path_prefix.empty() ? "/" : target->path_prefix;
    Deadline deadline(client, timeout);
    const httplib::Result result = client.Post(path.c_str(), sent, body, "application/json");
    const bool expired = deadline.finish();
    if (!result)
        return {std::nullopt, expired ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                      : "no answer: " + net::client_error_text(result.error())};
    PostOutcome outcome{result->status, ""};
    if (!outcome.delivered()) outcome.error = "the receiver answered " + std::to_string(result->status);
    return outcome;
}

} // namespace wr::notify
