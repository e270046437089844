#pragma once
// Token checks on an edge node, which has no token database: a token (a Prometheus scrape's) is
// checked by the control node (GET /client/v4/user/tokens/verify) and the answer kept a short
// while, so a scrape every 15 s costs the control node one check a minute. A token the control
// node vouched for within the last day keeps working while the control node cannot be reached, so
// an edge stays observable through a control node outage.
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "fleet/control_client.h"
#include "model/token.h"
#include "util/clock.h"

namespace wr::fleet {

inline constexpr std::chrono::seconds k_token_valid_for{60};      // a good answer, before asking again
inline constexpr std::chrono::seconds k_token_refused_for{10};    // a refusal, before asking again
inline constexpr std::chrono::hours k_token_trusted_offline_for{24}; // a good answer, while the control node is away

struct TokenCheck {
    enum class Verdict { valid, invalid, forbidden, unavailable };
    Verdict verdict = Verdict::unavailable;
    std::optional<model::Token> token; // valid: its scope and zone
    std::string message;               // otherwise: why
};

// What the cache says about a token checked at `checked` with `verdict`, now: use it, or ask
// again (pure).
enum class CacheUse { use, ask, use_if_unreachable };
CacheUse cache_use(TokenCheck::Verdict verdict, util::TimePoint checked, util::TimePoint now);

class RemoteTokens {
public:
    RemoteTokens(ControlClient client, const util::Clock& clock) : m_client(std::move(client)), m_clock(clock) {}

    TokenCheck check(const std::string& secret);

private:
    struct Entry {
        TokenCheck check;
        util::TimePoint checked{};
    };
    TokenCheck ask(const std::string& secret);

    ControlClient m_client;
    const util::Clock& m_clock;
    std::mutex m_client_mutex; // the client is one connection
    std::mutex m_cache_mutex;
    std::map<std::string, Entry> m_cache; // by SHA-256 of the token: never the token itself
};

} // namespace wr::fleet
