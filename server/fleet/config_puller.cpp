// Pulls, applies and caches the configuration on an edge node.
#include "fleet/config_puller.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "edge/edge_config.h"
#include "fleet/snapshot_wire.h"
#include "util/files.h"
#include "util/log.h"
#include "util/time_format.h"

namespace wr::fleet {

ConfigPuller::ConfigPuller(ControlClient client, std::filesystem::path cache_file, analytics::Registry& registry,
                           origin::Registry& origins, edge::ConfigSource& target, const util::Clock& clock,
                           std::chrono::milliseconds interval)
    : m_client(std::move(client)), m_cache_file(std::move(cache_file)), m_registry(registry), m_origins(origins), m_target(target),
      m_clock(clock), m_interval(interval) {
    // The cached copy first (if any), so that its ETag makes an unchanged configuration a 304.
    const bool cached = load_cache();
    const std::string where = m_client.url().text();
    std::lock_guard lock(m_poll_mutex);
    const ControlClient::Answer answer = m_client.fetch_snapshot(state().etag);
    if (answer.outcome == ControlClient::Outcome::refused)
        throw std::runtime_error("the control node at " + where + " refused the control token (" + answer.message +
                                 "); give an edge token with --control-token or WR_CONTROL_TOKEN (wr tokens create --scope edge)");
    if (answer.outcome == ControlClient::Outcome::ok) {
        if (answer.status == 304 || apply(answer.body, answer.etag, m_clock.now(), "control")) {
            std::lock_guard state_lock(m_state_mutex);
            m_state.source = "control";
            m_state.control_reachable = true;
            if (answer.status == 304) m_state.fetched_on = m_clock.now();
            util::log_info("edge", "configuration " + m_state.etag + " from the control node at " + where);
            return;
        }
    }
    const std::string why = answer.outcome == ControlClient::Outcome::ok ? "it sent a configuration this wr cannot read" : answer.message;
    if (!cached)
        throw std::runtime_error("cannot get the configuration from the control node at " + where + " (" + why + ") and there is no cached copy in " +
                                 m_cache_file.string() + "; start the control node first, or check --control-url");
    std::lock_guard state_lock(m_state_mutex);
    m_state.control_reachable = false;
    m_state.unreachable_since = m_clock.now();
    m_state.last_error = why;
    util::log_warn("edge", "the control node at " + where + " cannot be reached (" + why + "); serving the cached configuration of " +
                               util::format_iso8601(m_state.fetched_on) + " from " + m_cache_file.string());
}

ConfigPuller::~ConfigPuller() { stop(); }

bool ConfigPuller::load_cache() {
    const auto text = util::read_text_file(m_cache_file);
    if (!text) return false;
    const nlohmann::json cache = nlohmann::json::parse(*text, nullptr, false);
    if (!cache.is_object() || !cache.contains("snapshot") || !cache["snapshot"].is_string() || !cache.contains("etag") ||
        !cache["etag"].is_string() || !cache.contains("fetched_on") || !cache["fetched_on"].is_number_integer()) {
        util::log_warn("edge", "ignoring " + m_cache_file.string() + ": it is not a cached configuration");
        return false;
    }
    const util::TimePoint fetched_on{util::Milliseconds{cache["fetched_on"].get<int64_t>()}};
    return apply(cache["snapshot"].get<std::string>(), cache["etag"].get<std::string>(), fetched_on, "cache");
}

bool ConfigPuller::apply(const std::string& body, const std::string& etag, util::TimePoint fetched_on, const std::string& source) {
    std::string error;
    const std::optional<EdgeSnapshot> snapshot = read_snapshot(body, error);
    if (!snapshot) {
        util::log_error("edge", "not applying the configuration from the " + source + ": " + error);
        return false;
    }
    m_target.publish(edge::build_edge_config(snapshot->document, &m_registry, &m_origins), snapshot->keys);
    {
        std::lock_guard lock(m_state_mutex);
        m_state.etag = etag;
        m_state.source = source;
        m_state.fetched_on = fetched_on;
    }
    if (source != "cache") {
        try {
            const nlohmann::json cache = {{"etag", etag}, {"fetched_on", fetched_on.time_since_epoch().count()}, {"snapshot", body}};
            util::write_secret_file(m_cache_file, cache.dump());
        } catch (const std::exception& failure) {
            // Serving goes on; only a restart without the control node would miss the copy.
            util::log_error("edge", std::string("cannot keep a copy of the configuration: ") + failure.what());
        }
    }
    return true;
}

ConfigPuller::PollResult ConfigPuller::fetch_and_apply() {
    const ControlClient::Answer answer = m_client.fetch_snapshot(state().etag);
    const util::TimePoint now = m_clock.now();
    if (answer.outcome == ControlClient::Outcome::ok) {
        const bool changed = answer.status != 304;
        const bool applied = !changed || apply(answer.body, answer.etag, now, "control");
        std::lock_guard lock(m_state_mutex);
        if (!m_state.control_reachable)
            util::log_info("edge", "the control node at " + m_client.url().text() + " answers again" +
                                       (changed ? "" : "; the configuration has not changed"));
        m_state.control_reachable = true;
        m_state.last_error.clear();
        if (!changed) {
            m_state.source = "control";
            m_state.fetched_on = now;
        }
        if (changed && applied) util::log_info("edge", "applied configuration " + answer.etag + " from the control node");
        return applied ? (changed ? PollResult::applied : PollResult::unchanged) : PollResult::failed;
    }
    std::lock_guard lock(m_state_mutex);
    // Logged once per outage (and again if the reason changes), not every poll.
    if (m_state.control_reachable || m_state.last_error != answer.message) {
        const std::string what = answer.outcome == ControlClient::Outcome::refused ? "refuses the control token"
                                                                                   : "cannot be reached";
        util::log(answer.outcome == ControlClient::Outcome::refused ? util::LogLevel::error : util::LogLevel::warn, "edge",
                  "the control node at " + m_client.url().text() + " " + what + " (" + answer.message + "); serving configuration " +
                      m_state.etag + " of " + util::format_iso8601(m_state.fetched_on) + " meanwhile");
    }
    if (m_state.control_reachable) m_state.unreachable_since = now;
    m_state.control_reachable = false;
    m_state.last_error = answer.message;
    return PollResult::failed;
}

void ConfigPuller::poll() {
    std::lock_guard lock(m_poll_mutex);
    fetch_and_apply();
}

ConfigPuller::State ConfigPuller::state() const {
    std::lock_guard lock(m_state_mutex);
    return m_state;
}

void ConfigPuller::start() { m_thread = std::thread([this] { run(); }); }

void ConfigPuller::stop() {
    {
        std::lock_guard lock(m_stop_mutex);
        m_stopping = true;
    }
    m_stop_signal.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void ConfigPuller::run() {
    std::unique_lock lock(m_stop_mutex);
    while (!m_stop_signal.wait_for(lock, m_interval, [this] { return m_stopping; })) {
        lock.unlock();
        try {
            poll();
        } catch (const std::exception& error) {
            util::log_error("edge", std::string("pulling the configuration failed: ") + error.what());
        }
        lock.lock();
    }
}

} // namespace wr::fleet
