#pragma once
// The edge's decision for one request, without any I/O: route it, check the bypass rules and
// crawlers, open its cookie, ask the counters, and say what to do — proxy it (with which cookie
// to set), answer it (the queue page, its JSON, the reject page, a Turnstile challenge, a 429,
// a 421), or have a Turnstile token verified first (the one step that needs the network, which
// the edge server does and then calls answer_turnstile). One Gate per edge thread: it owns that
// thread's cipher context, random source and compiled templates.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "edge/config_source.h"
#include "edge/cookie.h"
#include "edge/crawler.h"
#include "edge/decision.h"
#include "edge/turnstile.h"
#include "page/compiled_template.h"
#include "page/render_cache.h"
#include "queue/admission.h"
#include "state/counters.h"
#include "util/random.h"

namespace wr::edge {

struct IncomingRequest {
    std::string_view method{};
    std::string_view target{};
    std::string_view host{};          // the Host header
    int host_headers = 1;             // how many Host headers came (more than one is refused)
    std::string_view cookie_header{};
    std::string_view accept{};
    std::string_view user_agent{};
    std::string_view referer{};
    bool https = false;
    queue::ClientAddress client{}; // edge/client_address
    bool has_client = false;
    std::string_view request_id{}; // shown on wr's own error pages
    // Finds any other request header by lowercase name, for rules that read one.
    std::string_view (*header)(const void* context, std::string_view lowercase_name) = nullptr;
    const void* header_context = nullptr;
};

// What the Gate needs beyond the counters, shared by every edge thread.
struct GateServices {
    const TurnstileOptions* turnstile = nullptr; // nullptr or inactive: no Turnstile
    CrawlerVerifier* crawlers = nullptr;         // nullptr: crawlers are never verified
};

// A page to answer with, shared rather than copied for each request: a rendered page stays in
// the thread's render cache, a built-in one in the program's catalog; the few pages made for one
// request alone (400, 421, 429, 500) are owned by their answer.
using PageText = std::shared_ptr<const std::string>;
PageText own_page(std::string text);
PageText built_in_page(const std::string& text); // text that lives as long as the program
inline std::string_view page_text(const PageText& page) { return page ? std::string_view(*page) : std::string_view(); }

// What to do with one request. A connection keeps one and the Gate fills it for each request,
// so that its strings keep their room and a decision allocates nothing (reset() clears it).
struct GateResult {
    enum class Action { proxy, respond, verify_turnstile } action = Action::respond;
    const ZoneConfig* zone = nullptr;
    const RoomConfig* room = nullptr;
    // respond
    int status = 200;
    PageText body;
    std::string_view content_type = "text/html; charset=utf-8"; // always a literal: no allocation per request
    int refresh_seconds = 0;  // Refresh header when > 0
    int retry_after_seconds = 0; // Retry-After header when > 0
    std::string location;     // Location header when not empty
    // verify_turnstile: the token to verify, and the target to send the visitor back to
    std::optional<TokenInTarget> turnstile;
    // both
    std::string set_cookie;   // a Set-Cookie value, or ""
    // proxy: the admitted ticket, for an origin's revoke command
    std::optional<queue::Ticket> admitted_ticket;
    queue::Policy policy;
    bool secure_cookie = false;
    // for the access log
    Decision decision = Decision::none;
    bool new_visitor = false; // no valid cookie for the room

    // Back to a fresh result (every field its initializer), keeping the strings' room.
    void reset();
};

// A proxied request the origin gave no usable answer: counted for the zone and for the room.
void record_origin_error(const GateResult& result, util::TimePoint now, model::OriginErrorKind kind);

class Gate {
public:
    Gate(state::Counters& counters, uint64_t seed, GateServices services = {});

    // Decides into `result` (reset first), which the caller keeps from request to request.
    void handle(const Snapshot& snapshot, const IncomingRequest& request, util::TimePoint now, GateResult& result);
    GateResult handle(const Snapshot& snapshot, const IncomingRequest& request, util::TimePoint now);

    // After handle() asked for a Turnstile token to be verified: counts the outcome, issues the
    // ticket (real queue, or the infinite queue for a failure when the room says so) and sends
    // the visitor back to the page without the token (303).
    GateResult answer_turnstile(const Snapshot& snapshot, const IncomingRequest& request, const TokenInTarget& token,
                                bool passed, util::TimePoint now);

    // The origin asked to end this session: frees the slot and returns a Set-Cookie that
    // expires the cookie (or "" when there was nothing to revoke).
    std::string revoke(const GateResult& admitted, util::TimePoint now);

private:
    // Where a request goes: its normalised host and path, which the rules read too. The Gate
    // keeps one (m_route) whose strings keep their room from request to request.
    struct Route {
        std::string host;
        std::string path;
        std::string_view query; // into the request's target
        std::string scratch;    // normalize_path's working copy
    };
    // The zone and room of the request (result.zone/room set), or a 421 in result.
    const RoomConfig* route(const Snapshot& snapshot, const IncomingRequest& request, GateResult& result, Route& route) const;
    // none when the room's rules and crawler bypass let the request be; else bypassed or crawler.
    Decision bypasses(const RoomConfig& room, const IncomingRequest& request, const Route& route) const;
    // Checks the visitor in. A new visitor who would wait joins the queue only within the room's
    // join limit (nullopt: refused), and not at all when `hold_new` (they must pass Turnstile first).
    std::optional<queue::Outcome> check_in(const RoomConfig& room, const Phase& phase, const std::optional<queue::Ticket>& ticket,
                                           const IncomingRequest& request, util::TimePoint now, bool hold_new);
    bool turnstile_applies(const Phase& phase) const;
    // The room's ticket from the first cookie of its name that opens for it (at most a few are
    // tried): a browser may send several of one name — a sibling subdomain can set one for the
    // parent domain — and a stranger's first must not knock the visitor out of line.
    std::optional<queue::Ticket> open_ticket(std::string_view cookie_header, const RoomConfig& room, const Snapshot& snapshot);
    void queue_response(const Snapshot& snapshot, const RoomConfig& room, const Phase& phase, const queue::Outcome& outcome,
                        const IncomingRequest& request, util::TimePoint now, GateResult& result);
    void too_many_joins(const RoomConfig& room, std::string_view request_id, util::TimePoint now, GateResult& result) const;
    // Writes the Set-Cookie value into `out`: the ticket sealed (nullptr: an empty value, which
    // with a Max-Age of 0 removes the cookie).
    void set_cookie(std::string& out, const Snapshot* snapshot, const RoomConfig& room, const queue::Ticket* ticket,
                    int64_t max_age_seconds, bool https);
    page::CompiledTemplate& compiled(const Snapshot& snapshot, const std::string& html);

    state::Counters& m_counters;
    GateServices m_services;
    std::array<std::string, 4> m_widgets; // the Turnstile widget per model::TurnstileMode
    util::SeededRandom m_random;
    CookieCodec m_codec;
    uint64_t m_templates_version = 0;
    std::unordered_map<const std::string*, page::CompiledTemplate> m_templates;
    page::RenderCache m_rendered;
    Route m_route;
};

// The built-in pages, in a room's default_template_language.
const std::string& default_queue_page(std::string_view language);
const std::string& reject_page(std::string_view language);
// wr's own error pages; each names the request's id (request_id_line), so a visitor's screenshot
// leads to its line in the access log.
std::string misdirected_page(std::string_view host, std::string_view request_id = {});
std::string too_many_joins_page(std::string_view request_id = {});
std::string ambiguous_path_page(std::string_view request_id = {});
std::string bad_host_page(std::string_view request_id = {});
// "<p …>Request id: <code>…</code></p>", or "" without an id.
std::string request_id_line(std::string_view request_id);

} // namespace wr::edge
