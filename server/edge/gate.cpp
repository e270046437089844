// Decides each edge request: route, cookie, admission, and the response for those who wait.
#include "edge/gate.h"

#include <charconv>

#include "edge/request_path.h"
#include "expr/evaluate.h"
#include "origin/registry.h"
#include "page/variables.h"
#include "page/translations.h"
#include "util/escape.h"

namespace wr::edge {
namespace {

int64_t seconds_until(util::TimePoint from, util::TimePoint to) {
    return std::max<int64_t>(0, std::chrono::ceil<std::chrono::seconds>(to - from).count());
}

page::QueueView queue_view(const RoomConfig& room, const Phase& phase, const queue::Outcome& outcome, util::TimePoint now) {
    page::QueueView view;
    view.now = now;
    view.wait_time_known = outcome.estimate.known;
    view.wait_time_from_limits = outcome.estimate.from_limits;
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

void record_origin_error(const GateResult& result, util::TimePoint now, model::OriginErrorKind kind) {
    if (result.zone->upstream) result.zone->upstream->stats.record_error(kind);
    if (result.room) result.room->stats->record_origin_error(now, kind);
}

PageText own_page(std::string text) { return std::make_shared<const std::string>(std::move(text)); }

// No owner: the catalog's pages live as long as the program, so sharing one counts nothing.
PageText built_in_page(const std::string& text) { return PageText(PageText(), &text); }

void GateResult::reset() {
    // Every field back to its initializer above, from one place; the two strings hand their room
    // to the fresh result first, so a decision that fills them again allocates nothing.
    GateResult fresh;
    fresh.location.swap(location);
    fresh.location.clear();
    fresh.set_cookie.swap(set_cookie);
    fresh.set_cookie.clear();
    *this = std::move(fresh);
}

const std::string& default_queue_page(std::string_view language) { return page::Catalog::embedded().locale(language).queue_page; }
const std::string& reject_page(std::string_view language) { return page::Catalog::embedded().locale(language).reject_page; }

std::string request_id_line(std::string_view request_id) {
    if (request_id.empty()) return "";
    return "<p style=\"color:#6b7280;font-size:.8em\">Request id: <code>" + util::escape_html(request_id) + "</code></p>";
}

std::string misdirected_page(std::string_view host, std::string_view request_id) {
    return "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>421 Misdirected Request</title>"
           "<h1>421 Misdirected Request</h1><p>This server does not serve the host <code>" + util::escape_html(host) + "</code>.</p>" +
           request_id_line(request_id) + "</html>\n";
}

std::string bad_host_page(std::string_view request_id) {
    return "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>400 Bad Request</title><h1>400 Bad Request</h1>"
           "<p>The request needs exactly one Host header: a valid host name and port, naming the host of its target.</p>" +
           request_id_line(request_id) + "</html>\n";
}

std::string ambiguous_path_page(std::string_view request_id) {
    return "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>400 Bad Request</title><h1>400 Bad Request</h1>"
           "<p>This address could be read as another one (an encoded slash or <code>;</code> parameters that "
           "change where it leads, or a backslash); this site does not accept it.</p>" +
           request_id_line(request_id) + "</html>\n";
}

std::string too_many_joins_page(std::string_view request_id) {
    return "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, "
           "initial-scale=1\"><title>429 Too Many Requests</title><main><h1>Too many people from your address</h1><p>Too many "
           "visitors from your network joined this queue in the last minute. Please try again in a minute.</p>" +
           request_id_line(request_id) + "</main></html>\n";
}

Gate::Gate(state::Counters& counters, uint64_t seed, GateServices services)
    : m_counters(counters), m_services(services), m_random(seed) {
    if (m_services.turnstile && m_services.turnstile->active())
        for (const model::TurnstileMode mode : {model::TurnstileMode::off, model::TurnstileMode::invisible,
                                                model::TurnstileMode::visible_non_interactive, model::TurnstileMode::visible_managed})
            m_widgets[static_cast<size_t>(mode)] = turnstile_widget(mode, *m_services.turnstile);
}

void Gate::set_cookie(std::string& out, const Snapshot* snapshot, const RoomConfig& room, const queue::Ticket* ticket,
                      int64_t max_age_seconds, bool https) {
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
    out.assign(room.cookie_name);
    out += '=';
    if (ticket && snapshot) m_codec.seal_into(out, *ticket, room.id, *snapshot->keys);
    out += "; Max-Age=";
    char digits[24];
    out.append(digits, static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, max_age_seconds).ptr - digits));
    out += "; Path=/; HttpOnly; SameSite=";
    out += same_site;
    if (secure) out += "; Secure";
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

const RoomConfig* Gate::route(const Snapshot& snapshot, const IncomingRequest& request, GateResult& result,
                              Route& route) const {
    normalize_host_into(request.host, route.host);
    // RFC 9112 §3.2: one Host, a valid authority, naming that of an absolute-form target.
    if (request.host_headers != 1 || !valid_host_header(request.host) || !host_matches_target(request.target, route.host)) {
        result.status = 400;
        result.decision = Decision::bad_request;
        result.body = own_page(bad_host_page(request.request_id));
        return nullptr;
    }
    result.zone = snapshot.config->find_zone(route.host);
    if (!result.zone) {
        result.status = 421;
        result.decision = Decision::misdirected;
        result.body = own_page(misdirected_page(route.host, request.request_id));
        return nullptr;
    }
    const auto refuse_ambiguous = [&]() -> const RoomConfig* {
        result.zone = nullptr;
        result.room = nullptr;
        result.status = 400;
        result.decision = Decision::bad_request;
        result.body = own_page(ambiguous_path_page(request.request_id));
        return nullptr;
    };
    const SplitTarget target = split_target(request.target);
    if (ambiguous_path(target.path)) return refuse_ambiguous();
    normalize_path_into(target.path, route.path, route.scratch);
    route.query = target.query;
    result.room = snapshot.config->find_room(route.host, route.path);
    // Origins may read a path otherwise than routing does; when such a reading lands in another
    // room than routing's, the path is refused like the other ambiguous ones. Rare, so the common
    // path pays a scan or two. A servlet container drops ";parameters" before it routes
    // ("/shop;x/checkout" is its "/shop/checkout").
    if (route.path.find(';') != std::string::npos) {
        strip_path_parameters_into(route.path, route.scratch);
        if (snapshot.config->find_room(route.host, route.scratch) != result.room) return refuse_ambiguous();
    }
    // Some servers decode an encoded slash and then collapse the slashes (Python's http.server
    // serves "/%2Fcheckout/" as "/checkout/"; nginx matches its locations on the decoded path).
    if (route.path.find("%2F") != std::string::npos) {
        std::string slashes = route.path;
        for (size_t at = slashes.find("%2F"); at != std::string::npos; at = slashes.find("%2F", at + 1)) slashes.replace(at, 3, "/");
        std::string decoded;
        std::string scratch;
        normalize_path_into(slashes, decoded, scratch);
        if (snapshot.config->find_room(route.host, decoded) != result.room) return refuse_ambiguous();
    }
    return result.room;
}

Decision Gate::bypasses(const RoomConfig& room, const IncomingRequest& request, const Route& route) const {
    if (!room.bypass_rules.empty()) {
        expr::RequestFields fields;
        fields.ip = request.client;
        fields.has_ip = request.has_client;
        fields.host = route.host;
        fields.uri = request.target;
        fields.path = route.path;
        fields.query = route.query;
        fields.method = request.method;
        fields.user_agent = request.user_agent;
        fields.cookie = request.cookie_header;
        fields.referer = request.referer;
        fields.header = request.header;
        fields.header_context = request.header_context;
        for (const auto& rule : room.bypass_rules)
            if (expr::evaluate(*rule, fields)) return Decision::bypassed;
    }
    if (room.zone->search_engine_crawler_bypass && m_services.crawlers && request.has_client && !request.user_agent.empty())
        if (const KnownCrawler* crawler = match_crawler(request.user_agent))
            if (m_services.crawlers->is_verified(request.client, *crawler)) return Decision::crawler;
    return Decision::none;
}

std::optional<queue::Ticket> Gate::open_ticket(std::string_view header, const RoomConfig& room, const Snapshot& snapshot) {
    constexpr int k_most_tried = 4;
    for (int tried = 0; tried < k_most_tried; ++tried) {
        const auto value = find_cookie(header, room.cookie_name);
        if (!value) break;
        if (auto ticket = m_codec.open(*value, room.id, *snapshot.keys)) return ticket;
        header.remove_prefix(static_cast<size_t>(value->data() + value->size() - header.data()));
    }
    return std::nullopt;
}

bool Gate::turnstile_applies(const Phase& phase) const {
    return phase.turnstile_mode != model::TurnstileMode::off && m_services.turnstile && m_services.turnstile->active();
}

std::optional<queue::Outcome> Gate::check_in(const RoomConfig& room, const Phase& phase, const std::optional<queue::Ticket>& ticket,
                                             const IncomingRequest& request, util::TimePoint now, bool hold_new) {
    const int64_t join_limit = request.has_client ? room.settings.join_limit_per_ip_per_minute : 0;
    const queue::Arrival arrival = hold_new || join_limit > 0 ? queue::Arrival::hold : queue::Arrival::join;
    // The limits in force: the phase's, lowered while the origin guard holds the room back.
    const queue::Policy policy = origin::guarded(phase.policy, room.guard.get());
    queue::Outcome outcome = m_counters.check_in(room.id, policy, ticket, now, m_random, arrival);
    if (outcome.held && !hold_new) {
        if (!m_counters.try_join(room.id, request.client, join_limit, now)) return std::nullopt;
        outcome = m_counters.check_in(room.id, policy, ticket, now, m_random, queue::Arrival::join);
    }
    if (outcome.newly_admitted) room.stats->record_admission(now, outcome.ticket.arrived);
    return outcome;
}

GateResult Gate::handle(const Snapshot& snapshot, const IncomingRequest& request, util::TimePoint now) {
    GateResult result;
    handle(snapshot, request, now, result);
    return result;
}

void Gate::handle(const Snapshot& snapshot, const IncomingRequest& request, util::TimePoint now, GateResult& result) {
    result.reset();
    const RoomConfig* room = route(snapshot, request, result, m_route);
    if (!result.zone) return;
    result.action = GateResult::Action::proxy;
    result.decision = Decision::no_room;
    if (!room) return;
    if (room->settings.suspended) {
        result.decision = Decision::passthrough;
        room->stats->record_request(now, analytics::Outcome::passthrough);
        return;
    }
    // Bypassed traffic is not the room's business: no cookie, no counts, whatever the phase.
    if (const Decision bypass = bypasses(*room, request, m_route); bypass != Decision::none) {
        result.decision = bypass;
        room->stats->record_request(now, analytics::Outcome::bypassed);
        return;
    }

    const Phase& phase = room->phase_at(now);
    std::optional<queue::Ticket> ticket = open_ticket(request.cookie_header, *room, snapshot);
    const bool challenging = turnstile_applies(phase);
    if (challenging && !(ticket && (ticket->turnstile_answered || ticket->admitted()))) {
        if (auto token = take_turnstile_token(request.target)) {
            result.action = GateResult::Action::verify_turnstile;
            result.decision = Decision::turnstile_verified;
            result.turnstile = std::move(token);
            return;
        }
    }

    // A new visitor may have to pass the challenge, or get under the join limit, before joining.
    const bool must_pass_first = challenging && phase.turnstile_action == model::TurnstileAction::infinite_queue;
    const std::optional<queue::Outcome> checked_in = check_in(*room, phase, ticket, request, now, must_pass_first);
    if (!checked_in) return too_many_joins(*room, request.request_id, now, result);
    const queue::Outcome& outcome = *checked_in;
    result.policy = origin::guarded(phase.policy, room->guard.get());
    result.secure_cookie = request.https;
    result.new_visitor = outcome.new_user;

    if (outcome.verdict == queue::Verdict::admit) {
        result.decision = phase.policy.method == model::QueueingMethod::passthrough ? Decision::passthrough : Decision::admitted;
        room->stats->record_request(now, phase.policy.method == model::QueueingMethod::passthrough ? analytics::Outcome::passthrough
                                                                                                    : analytics::Outcome::admitted);
        result.admitted_ticket = outcome.ticket;
        if (outcome.counted || outcome.new_user || outcome.ticket != ticket)
            set_cookie(result.set_cookie, &snapshot, *room, &outcome.ticket, seconds_until(now, queue::ticket_expiry(outcome.ticket, phase.policy)),
                       request.https);
        return;
    }
    queue_response(snapshot, *room, phase, outcome, request, now, result);
    // A reject room decides before looking at the ticket: no cookie is what makes a visitor new.
    result.new_visitor = outcome.new_user || !ticket;
}

GateResult Gate::answer_turnstile(const Snapshot& snapshot, const IncomingRequest& request, const TokenInTarget& token,
                                  bool passed, util::TimePoint now) {
    GateResult result;
    const RoomConfig* room = route(snapshot, request, result, m_route);
    result.status = 303;
    result.decision = Decision::turnstile_verified;
    result.location = same_site_location(token.target_without);
    result.content_type = "text/plain; charset=utf-8";
    if (!room) return result; // the room went away meanwhile: back to the page, which decides afresh
    const Phase& phase = room->phase_at(now);
    room->stats->record_turnstile(now, passed ? analytics::TurnstileOutcome::success : analytics::TurnstileOutcome::failure);

    std::optional<queue::Ticket> ticket = open_ticket(request.cookie_header, *room, snapshot);
    if (ticket && queue::ticket_expiry(*ticket, phase.policy) <= now) ticket.reset();

    const bool to_infinite_queue = !passed && phase.turnstile_action == model::TurnstileAction::infinite_queue;
    if (to_infinite_queue && !(ticket && ticket->admitted())) {
        ticket = queue::infinite_queue_ticket(phase.policy, now, m_random);
    } else if (!ticket) {
        // Passed (or only logged): into the real queue, now.
        const std::optional<queue::Outcome> outcome = check_in(*room, phase, std::nullopt, request, now, false);
        if (!outcome) {
            too_many_joins(*room, request.request_id, now, result);
            return result;
        }
        ticket = outcome->ticket;
    }
    ticket->turnstile_answered = true;
    set_cookie(result.set_cookie, &snapshot, *room, &*ticket, seconds_until(now, queue::ticket_expiry(*ticket, phase.policy)), request.https);
    return result;
}

void Gate::too_many_joins(const RoomConfig& room, std::string_view request_id, util::TimePoint now, GateResult& result) const {
    result.reset();
    result.zone = room.zone;
    result.room = &room;
    result.status = 429;
    result.decision = Decision::join_limited;
    result.new_visitor = true;
    result.retry_after_seconds = static_cast<int>(queue::JoinLimiter::seconds_to_next_window(now));
    result.body = own_page(too_many_joins_page(request_id));
    room.stats->record_request(now, analytics::Outcome::rejected);
}

void Gate::queue_response(const Snapshot& snapshot, const RoomConfig& room, const Phase& phase, const queue::Outcome& outcome,
                          const IncomingRequest& request, util::TimePoint now, GateResult& result) {
    result.reset();
    result.zone = room.zone;
    result.room = &room;
    result.status = room.settings.queueing_status_code;
    const bool reject = outcome.verdict == queue::Verdict::reject;
    result.decision = reject ? Decision::rejected : Decision::queued;
    const bool infinite = outcome.ticket.infinite_queue;
    if (infinite) {
        // Bots are not in the queue: counted apart, and not in the queue's own figures.
        room.stats->record_infinite_refresh(now);
    } else {
        room.stats->record_request(now, reject ? analytics::Outcome::rejected : analytics::Outcome::queued);
        if (!reject && outcome.estimate.known) room.stats->record_estimate(now, outcome.estimate.minutes);
    }
    page::QueueView view = queue_view(room, phase, outcome, now);
    if (reject) view.last_updated = now;
    const bool wants_json = room.settings.json_response_enabled && request.accept == "application/json";
    // The widget goes to visitors who have not answered yet (never to the infinite queue, whose
    // page must look like that of someone who passed).
    if (!reject && !infinite && !wants_json && turnstile_applies(phase) && !outcome.ticket.turnstile_answered) {
        view.turnstile_html = m_widgets[static_cast<size_t>(phase.turnstile_mode)];
        room.stats->record_turnstile(now, analytics::TurnstileOutcome::challenge);
        result.decision = Decision::turnstile_challenge;
    }
    if (!reject) {
        // The infinite queue's ticket goes back when the real queue's would: at a check-in that counts.
        const bool infinite_checked_in = infinite && outcome.ticket.last_check_in == now;
        if ((outcome.counted || infinite_checked_in) && !outcome.held) {
            set_cookie(result.set_cookie, &snapshot, room, &outcome.ticket, seconds_until(now, queue::ticket_expiry(outcome.ticket, phase.policy)),
                       request.https);
        }
        // Come back when the next check-in counts.
        const util::TimePoint due = outcome.ticket.last_check_in + std::chrono::seconds{outcome.ticket.refresh_interval_seconds};
        result.refresh_seconds = static_cast<int>(std::max<int64_t>(1, seconds_until(now, due)));
        view.refresh_interval_seconds = result.refresh_seconds;
    }

    if (wants_json) {
        result.content_type = "application/json";
        static const char k_json_source = 0;
        const page::RenderKey key = page::render_key(view, &k_json_source);
        const PageText* cached = m_rendered.find(key);
        result.body = cached ? *cached : m_rendered.store(key, page::json_response(view).dump());
        return;
    }
    const std::string* custom = phase.custom_page_html;
    const bool has_custom = custom && !custom->empty();
    const std::string& language = room.settings.default_template_language;
    if (reject && !has_custom) {
        result.body = built_in_page(reject_page(language));
        return;
    }
    if (!has_custom) custom = &default_queue_page(language);
    page::CompiledTemplate& page_template = compiled(snapshot, *custom);
    const page::RenderKey key = page::render_key(view, custom);
    if (const PageText* cached = m_rendered.find(key)) {
        result.body = *cached;
    } else if (auto rendered = page_template.render(view)) {
        result.body = m_rendered.store(key, std::move(*rendered));
    } else {
        // A template that parsed when stored always renders; this guards a hand-edited database.
        result.body = built_in_page(reject ? reject_page(language) : default_queue_page(language));
    }
}

std::string Gate::revoke(const GateResult& admitted, util::TimePoint now) {
    if (!admitted.room || !admitted.admitted_ticket) return "";
    if (m_counters.revoke(admitted.room->id, admitted.policy, *admitted.admitted_ticket, now))
        admitted.room->stats->record_revocation(now);
    std::string expired;
    set_cookie(expired, nullptr, *admitted.room, nullptr, 0, admitted.secure_cookie);
    return expired;
}

} // namespace wr::edge
