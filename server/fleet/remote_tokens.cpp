// Checks tokens through the control node, with a cache.
#include "fleet/remote_tokens.h"

#include <nlohmann/json.hpp>

#include "util/secure.h"

namespace wr::fleet {
namespace {

constexpr size_t k_max_cached = 256;

} // namespace

CacheUse cache_use(TokenCheck::Verdict verdict, util::TimePoint checked, util::TimePoint now) {
    const auto age = now - checked;
    switch (verdict) {
    case TokenCheck::Verdict::valid:
        if (age <= k_token_valid_for) return CacheUse::use;
        return age <= k_token_trusted_offline_for ? CacheUse::use_if_unreachable : CacheUse::ask;
    case TokenCheck::Verdict::invalid:
    case TokenCheck::Verdict::forbidden:
        return age <= k_token_refused_for ? CacheUse::use : CacheUse::ask;
    case TokenCheck::Verdict::unavailable:
        return CacheUse::ask;
    }
    return CacheUse::ask;
}

TokenCheck RemoteTokens::ask(const std::string& secret) {
    ControlClient::Answer answer;
    {
        std::lock_guard lock(m_client_mutex);
        answer = m_client.verify(secret);
    }
    TokenCheck check;
    if (answer.outcome == ControlClient::Outcome::ok) {
        const nlohmann::json body = nlohmann::json::parse(answer.body, nullptr, false);
        const nlohmann::json result = body.is_object() ? body.value("result", nlohmann::json()) : nlohmann::json();
        const auto scope = result.is_object() && result.contains("scope") && result["scope"].is_string()
                               ? model::parse_enum<model::TokenScope>(result["scope"].get<std::string>())
                               : std::nullopt;
        if (!scope) {
            check.message = "the control node's answer about the token is not one this wr reads";
            return check;
        }
        model::Token token;
        token.id = result.value("id", "");
        token.name = result.value("name", "");
        token.scope = *scope;
        if (result.contains("zone_id") && result["zone_id"].is_string()) token.zone_id = result["zone_id"].get<std::string>();
        check.verdict = TokenCheck::Verdict::valid;
        check.token = std::move(token);
        return check;
    }
    check.message = answer.message;
    if (answer.outcome == ControlClient::Outcome::refused)
        check.verdict = answer.status == 401 ? TokenCheck::Verdict::invalid : TokenCheck::Verdict::forbidden;
    else
        check.message = "the control node at " + m_client.url().text() + " cannot check the token (" + answer.message + ")";
    return check;
}

TokenCheck RemoteTokens::check(const std::string& secret) {
    const std::string key = util::sha256_hex(secret);
    const util::TimePoint now = m_clock.now();
    std::optional<Entry> cached;
    {
        std::lock_guard lock(m_cache_mutex);
        if (const auto it = m_cache.find(key); it != m_cache.end()) cached = it->second;
    }
    CacheUse use = cached ? cache_use(cached->check.verdict, cached->checked, now) : CacheUse::ask;
    if (use == CacheUse::use) return cached->check;
    TokenCheck fresh = ask(secret);
    if (fresh.verdict == TokenCheck::Verdict::unavailable) {
        if (use == CacheUse::use_if_unreachable) return cached->check;
        return fresh;
    }
    std::lock_guard lock(m_cache_mutex);
    if (m_cache.size() >= k_max_cached) m_cache.erase(m_cache.begin());
    m_cache[key] = Entry{fresh, now};
    return fresh;
}

} // namespace wr::fleet
