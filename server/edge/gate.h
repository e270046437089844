#pragma once
// The edge's decision for one request, without any I/O: route it, open its cookie, ask the
// counters, and say what to do — proxy it (with which cookie to set) or answer it (the queue
// page, its JSON, the reject page, a 421). One Gate per edge thread: it owns that thread's
// cipher context, random source and compiled templates.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "edge/config_source.h"
#include "edge/cookie.h"
#include "page/compiled_template.h"
#include "page/render_cache.h"
#include "queue/admission.h"
#include "state/counters.h"
#include "util/random.h"

namespace wr::edge {

struct IncomingRequest {
    std::string_view method;
    std::string_view target;
    std::string_view host;          // the Host header
    std::string_view cookie_header;
    std::string_view accept;
    bool https = false;
};

struct GateResult {
    enum class Action { proxy, respond } action = Action::respond;
    const ZoneConfig* zone = nullptr;
    const RoomConfig* room = nullptr;
    // respond
    int status = 200;
    std::string body;
    std::string content_type = "text/html; charset=utf-8";
    int refresh_seconds = 0;  // Refresh header when > 0
    // both
    std::string set_cookie;   // a Set-Cookie value, or ""
    // proxy: the admitted ticket, for an origin's revoke command
    std::optional<queue::Ticket> admitted_ticket;
    queue::Policy policy;
    bool secure_cookie = false;
};

class Gate {
public:
    Gate(state::Counters& counters, uint64_t seed);

    GateResult handle(const Snapshot& snapshot, const IncomingRequest& request, util::TimePoint now);

    // The origin asked to end this session: frees the slot and returns a Set-Cookie that
    // expires the cookie (or "" when there was nothing to revoke).
    std::string revoke(const GateResult& admitted, util::TimePoint now);

private:
    GateResult queue_response(const Snapshot& snapshot, const RoomConfig& room, const Phase& phase,
                              const queue::Outcome& outcome, const IncomingRequest& request, util::TimePoint now);
    std::string set_cookie(const RoomConfig& room, const std::string& value, int64_t max_age_seconds, bool https) const;
    page::CompiledTemplate& compiled(const Snapshot& snapshot, const std::string& html);

    state::Counters& m_counters;
    util::SeededRandom m_random;
    CookieCodec m_codec;
    uint64_t m_templates_version = 0;
    std::unordered_map<const std::string*, page::CompiledTemplate> m_templates;
    page::RenderCache m_rendered;
};

// The built-in pages, in a room's default_template_language.
const std::string& default_queue_page(std::string_view language);
const std::string& reject_page(std::string_view language);
std::string misdirected_page(std::string_view host);

} // namespace wr::edge
