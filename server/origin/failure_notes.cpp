// Rate-limited lines about an origin's failures.
#include "origin/failure_notes.h"

namespace wr::origin {

std::string failure_description(model::OriginErrorKind kind, uint64_t count) {
    const bool one = count == 1;
    std::string what;
    switch (kind) {
    case model::OriginErrorKind::refused: what = one ? "connection refused or unreachable" : "connections refused or unreachable"; break;
    case model::OriginErrorKind::reset: what = one ? "connection closed before its answer was whole" : "connections closed before their answer was whole"; break;
    case model::OriginErrorKind::timeout: what = one ? "request not answered in time" : "requests not answered in time"; break;
    case model::OriginErrorKind::invalid: what = one ? "answer that was not valid HTTP" : "answers that were not valid HTTP"; break;
    case model::OriginErrorKind::tls: what = one ? "TLS handshake failed" : "TLS handshakes failed"; break;
    }
    return std::to_string(count) + " " + what;
}

std::vector<std::string> FailureNotes::update(const std::string& zone_name, const Counts& counts, util::TimePoint now) {
    std::vector<std::string> lines;
    auto& kinds = m_zones[zone_name];
    for (size_t i = 0; i < kinds.size(); ++i) {
        Kind& kind = kinds[i];
        // Counts only grow; a smaller one is a new start of the counters (never a negative count).
        const uint64_t more = counts[i] >= kind.seen ? counts[i] - kind.seen : counts[i];
        kind.seen = counts[i];
        kind.unreported += more;
        if (kind.unreported == 0) continue;
        const auto what = static_cast<model::OriginErrorKind>(i);
        if (!kind.ever_noted || now - kind.noted >= k_failure_note_interval) {
            const bool first = !kind.ever_noted || now - kind.noted >= 2 * k_failure_note_interval;
            lines.push_back("origin of zone " + zone_name + ": " + failure_description(what, kind.unreported) +
                            (first ? " (more of these are summed up once a minute)" : " in the last minute"));
            kind.unreported = 0;
            kind.noted = now;
            kind.ever_noted = true;
        }
    }
    return lines;
}

} // namespace wr::origin
