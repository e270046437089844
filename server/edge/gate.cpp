// Decides each edge request: route, cookie, admission, and the response for those who wait.
#include "edge/gate.h"

#include "edge/request_path.h"
#include "page/variables.h"
#include "page/translations.h"

namespace wr::edge {
namespace {

int64_t seconds_until(util::TimePoint from, util::TimePoint to) {
    return std::max<int64_t>(0, std::chrono::ceil<std::chrono::seconds>(to - from).count());
}

page::QueueView queue_view(const RoomConfig& room, const Phase& phase, const queue::Outcome& outcome, util::TimePoint now) {
    page::QueueView view;
    view.now = now;
    view.wait_time_known = outcome.estimate.known;
    view.wait_time_minutes = outcome.estimate.minutes;
    view.wait_time_p25_minutes = outcome.estimate.p25_minutes;
    view.wait_time_p50_minutes = outcome.estimate.p50_minutes;
    view.wait_time_p75_minutes = outcome.estimate.p75_minutes;
    view.queue_is_full = outcome.queue_is_full;
    view.queue_all = phase.policy.queue_all;
    view.last_updated = outcome.ticket.last_check_in;
    view.refresh_interval_seconds = outcome.ticket.refresh_interval_seconds;
    view.queueing_method = phase.queueing_method;
    view.event_active = !phase.event_id.empty();
    view.event_prequeueing = phase.prequeueing;
    view.event_start = phase.event_start;
    view.event_end = phase.event_end;
    view.shuffle_at_event_start = phase.shuffle_at_event_start;
    view.infinite_queue = false; // the flag never shows; the infinite queue looks like the real one
    view.language = room.settings.default_template_language;
    return view;
}

} // namespace

const std::string& default_queue_page(std::string_view language) { return page::Catalog::embedded().locale(language).queue_page; }
const std::string& reject_page(std::string_view language) { return page::Catalog::embedded().locale(language).reject_page; }

std::string misdirected_page(std::string_view host) {
    std::string escaped;
    for (const char c : host) {
        if (c == '<') escaped += "&lt;";
        else if (c == '>') escaped += "&gt;";
        else if (c == '&') escaped += "&amp;";
        else if (c == '"') escaped += "&quot;";
        else escaped += c;
    }
    return "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>421 Misdirected Request</title>"
           "<h1>421 Misdirected Request</h1><p>This server does not serve the host <code>" + escaped + "</code>.</p></html>\n";
}

Gate::Gate(state::Counters& counters, uint64_t seed) : m_counters(counters), m_random(seed) {}

std::string Gate::set_cookie(const RoomConfig& room, const std::string& value, int64_t max_age_seconds, bool https) const {
    const model::CookieAttributes& attributes = room.settings.cookie_attributes;
    bool secure = attributes.secure == model::SecureAttribute::always ||
                  (attributes.secure == model::SecureAttribute::automatic && https);
    std::string_view same_site;
    switch (attributes.samesite) {
    case model::SameSite::automatic: same_site = https ? "None" : "Lax"; break;
    case model::SameSite::lax: same_site = "Lax"; break;
    case model::SameSite::strict: same_site = "Strict"; break;
    case model::SameSite::none: same_site = "None"; break;
    }
    // Browsers drop SameSite=None cookies that are not Secure.
    if (same_site == "None") secure = true;
    std::string cookie = room.cookie_name;
    cookie += '=';
    cookie += value;
    cookie += "; Max-Age=";
    cookie += std::to_string(max_age_seconds);
    cookie += "; Path=/; HttpOnly; SameSite=";
    cookie += same_site;
    if (secure) cookie += "; Secure";
    return cookie;
}

page::CompiledTemplate& Gate::compiled(const Snapshot& snapshot, const std::string& html) {
    // Snapshots own the template texts; a new snapshot may reuse addresses, so start over.
    if (snapshot.version != m_templates_version) {
        m_templates.clear();
        m_rendered.clear();
        m_templates_version = snapshot.version;
    }
    auto it = m_templates.find(&html);
    if (it == m_templates.end()) it = m_templates.emplace(&html, page::CompiledTemplate(html)).first;
    return it->second;
}

GateResult Gate::handle(const Snapshot& snapshot, const IncomingRequest& request, util::TimePoint now) {
    GateResult result;
    const std::string host = normalize_host(request.host);
    result.zone = snapshot.config->find_zone(host);
    if (!result.zone) {
        result.status = 421;
        result.body = misdirected_page(host);
        return result;
    }
    const std::string path = normalize_path(split_target(request.target).path);
    const RoomConfig* room = snapshot.config->find_room(host, path);
    result.room = room;
    result.action = GateResult::Action::proxy;
    if (!room) return result;
    if (room->settings.suspended) {
        room->stats->record_request(now, analytics::Outcome::passthrough);
        return result;
    }

    const Phase& phase = room->phase_at(now);
    std::optional<queue::Ticket> ticket;
    if (const auto value = find_cookie(request.cookie_header, room->cookie_name))
        ticket = m_codec.open(*value, room->id, *snapshot.keys);
    const queue::Outcome outcome = m_counters.check_in(room->id, phase.policy, ticket, now, m_random);
    result.policy = phase.policy;
    result.secure_cookie = request.https;

    if (outcome.verdict == queue::Verdict::admit) {
        room->stats->record_request(now, phase.policy.method == model::QueueingMethod::passthrough ? analytics::Outcome::passthrough
                                                                                                    : analytics::Outcome::admitted);
        if (outcome.newly_admitted) room->stats->record_admission(now, outcome.ticket.arrived);
        result.admitted_ticket = outcome.ticket;
        if (outcome.counted || outcome.new_user || outcome.ticket != ticket)
            result.set_cookie = set_cookie(*room, m_codec.seal(outcome.ticket, room->id, *snapshot.keys),
                                           seconds_until(now, queue::ticket_expiry(outcome.ticket, phase.policy)), request.https);
        return result;
    }
    return queue_response(snapshot, *room, phase, outcome, request, now);
}

GateResult Gate::queue_response(const Snapshot& snapshot, const RoomConfig& room, const Phase& phase,
                                const queue::Outcome& outcome, const IncomingRequest& request, util::TimePoint now) {
    GateResult result;
    result.zone = room.zone;
    result.room = &room;
    result.status = room.settings.queueing_status_code;
    const bool reject = outcome.verdict == queue::Verdict::reject;
    room.stats->record_request(now, reject ? analytics::Outcome::rejected : analytics::Outcome::queued);
    if (!reject && outcome.estimate.known) room.stats->record_estimate(now, outcome.estimate.minutes);
    page::QueueView view = queue_view(room, phase, outcome, now);
    if (reject) view.last_updated = now;
    if (!reject) {
        if (outcome.counted) {
            result.set_cookie = set_cookie(room, m_codec.seal(outcome.ticket, room.id, *snapshot.keys),
                                           seconds_until(now, queue::ticket_expiry(outcome.ticket, phase.policy)), request.https);
        }
        // Come back when the next check-in counts.
        const util::TimePoint due = outcome.ticket.last_check_in + std::chrono::seconds{outcome.ticket.refresh_interval_seconds};
        result.refresh_seconds = static_cast<int>(std::max<int64_t>(1, seconds_until(now, due)));
        view.refresh_interval_seconds = result.refresh_seconds;
    }

    if (room.settings.json_response_enabled && request.accept == "application/json") {
        result.content_type = "application/json";
        static const char k_json_source = 0;
        const page::RenderKey key = page::render_key(view, &k_json_source);
        const std::string* cached = m_rendered.find(key);
        result.body = cached ? *cached : m_rendered.store(key, page::json_response(view).dump());
        return result;
    }
    const std::string* custom = phase.custom_page_html;
    const bool has_custom = custom && !custom->empty();
    const std::string& language = room.settings.default_template_language;
    if (reject && !has_custom) {
        result.body = reject_page(language);
        return result;
    }
    if (!has_custom) custom = &default_queue_page(language);
    page::CompiledTemplate& page_template = compiled(snapshot, *custom);
    const page::RenderKey key = page::render_key(view, custom);
    if (const std::string* cached = m_rendered.find(key)) {
        result.body = *cached;
    } else if (auto rendered = page_template.render(view)) {
        result.body = m_rendered.store(key, std::move(*rendered));
    } else {
        // A template that parsed when stored always renders; this guards a hand-edited database.
        result.body = reject ? reject_page(language) : default_queue_page(language);
    }
    return result;
}

std::string Gate::revoke(const GateResult& admitted, util::TimePoint now) {
    if (!admitted.room || !admitted.admitted_ticket) return "";
    if (m_counters.revoke(admitted.room->id, admitted.policy, *admitted.admitted_ticket, now))
        admitted.room->stats->record_revocation(now);
    return set_cookie(*admitted.room, "", 0, admitted.secure_cookie);
}

} // namespace wr::edge
