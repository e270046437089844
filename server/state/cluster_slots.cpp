// Key slots, the slot map read from CLUSTER SLOTS, and redirections.
#include "state/cluster_slots.h"

#include <hiredis/hiredis.h>

#include <stdexcept>

#include "util/parse_number.h"

namespace wr::state {
namespace {

std::string slot_reply_text(const redisReply* reply) {
    if (reply && (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS))
        return std::string(reply->str, reply->len);
    return "";
}

std::optional<int64_t> slot_reply_integer(const redisReply* reply) {
    if (!reply || reply->type != REDIS_REPLY_INTEGER) return std::nullopt;
    return reply->integer;
}

// "host:port", "[v6]:port" or ":port" (the answering node's host).
std::optional<RedisEndpoint> redirection_target(std::string_view text, const std::string& answered_by_host) {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    const auto port = util::parse_number<int>(text.substr(colon + 1));
    if (!port || *port < 1 || *port > 65535) return std::nullopt;
    return RedisEndpoint{host.empty() ? answered_by_host : std::string(host), *port};
}

} // namespace

uint16_t crc16_xmodem(std::string_view bytes) {
    // Polynomial 0x1021, initial value 0, no reflection, no final xor: the Cluster's CRC16.
    uint16_t crc = 0;
    for (const char c : bytes) {
        crc ^= static_cast<uint16_t>(static_cast<uint8_t>(c) << 8);
        for (int bit = 0; bit < 8; ++bit) crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

int key_slot(std::string_view key) {
    // Only the first '{' counts, and only with a non-empty tag after it: "{}x" hashes whole.
    if (const size_t open = key.find('{'); open != std::string_view::npos) {
        const size_t close = key.find('}', open + 1);
        if (close != std::string_view::npos && close > open + 1) key = key.substr(open + 1, close - open - 1);
    }
    return crc16_xmodem(key) % k_cluster_slots;
}

SlotMap SlotMap::from_cluster_slots(const redisReply* reply, const std::string& answered_by_host) {
    if (!reply || reply->type != REDIS_REPLY_ARRAY) throw std::invalid_argument("CLUSTER SLOTS did not answer a list of slot ranges");
    SlotMap map;
    for (size_t i = 0; i < reply->elements; ++i) {
        const redisReply* range = reply->element[i];
        if (range->type != REDIS_REPLY_ARRAY || range->elements < 3)
            throw std::invalid_argument("CLUSTER SLOTS range " + std::to_string(i) + " is not [first, last, master, …]");
        const auto first = slot_reply_integer(range->element[0]);
        const auto last = slot_reply_integer(range->element[1]);
        if (!first || !last || *first < 0 || *last >= k_cluster_slots || *first > *last)
            throw std::invalid_argument("CLUSTER SLOTS range " + std::to_string(i) + " has no slots 0 to 16383");
        const redisReply* master = range->element[2];
        if (master->type != REDIS_REPLY_ARRAY || master->elements < 2)
            throw std::invalid_argument("CLUSTER SLOTS range " + std::to_string(i) + " names no master");
        const auto port = slot_reply_integer(master->element[1]);
        const std::string host = slot_reply_text(master->element[0]);
        // "?": the answering node does not know the master's address yet (Redis 7 with hostname
        // endpoints): its slots stay without a master in this map — their rooms fail alone and the
        // map is read again — while every other range is served.
        if (host == "?") continue;
        if (!port || *port < 1 || *port > 65535)
            throw std::invalid_argument("CLUSTER SLOTS range " + std::to_string(i) + " has no master address");
        const int16_t owner = map.index_of({host.empty() ? answered_by_host : host, static_cast<int>(*port)});
        for (int64_t slot = *first; slot <= *last; ++slot) map.m_owner[static_cast<size_t>(slot)] = owner;
    }
    return map;
}

int16_t SlotMap::index_of(const RedisEndpoint& master) {
    for (size_t i = 0; i < m_masters.size(); ++i)
        if (m_masters[i] == master) return static_cast<int16_t>(i + 1);
    m_masters.push_back(master);
    return static_cast<int16_t>(m_masters.size());
}

std::optional<RedisEndpoint> SlotMap::master_of(int slot) const {
    if (slot < 0 || slot >= k_cluster_slots) return std::nullopt;
    const int16_t owner = m_owner[static_cast<size_t>(slot)];
    if (owner == 0) return std::nullopt;
    return m_masters[static_cast<size_t>(owner - 1)];
}

void SlotMap::move(int slot, const RedisEndpoint& master) {
    if (slot < 0 || slot >= k_cluster_slots) return;
    m_owner[static_cast<size_t>(slot)] = index_of(master);
}

Redirection redirection_of(std::string_view error, const std::string& answered_by_host) {
    Redirection out;
    if (error.starts_with("CLUSTERDOWN") || error.starts_with("TRYAGAIN")) {
        out.kind = Redirection::Kind::refresh;
        return out;
    }
    Redirection::Kind kind = Redirection::Kind::none;
    if (error.starts_with("MOVED ")) kind = Redirection::Kind::moved;
    else if (error.starts_with("ASK ")) kind = Redirection::Kind::ask;
    else return out;
    error.remove_prefix(kind == Redirection::Kind::moved ? 6 : 4);
    const size_t space = error.find(' ');
    if (space == std::string_view::npos) return out;
    const auto slot = util::parse_number<int>(error.substr(0, space));
    if (error.substr(space + 1).starts_with("?:")) { // a master whose address the node does not know yet: wait for a new map
        out.kind = Redirection::Kind::refresh;
        return out;
    }
    const auto target = redirection_target(error.substr(space + 1), answered_by_host);
    if (!slot || *slot < 0 || *slot >= k_cluster_slots || !target) return out;
    out.kind = kind;
    out.slot = *slot;
    out.target = *target;
    return out;
}

NextStep next_step(const Redirection& redirection, int redirections_so_far) {
    switch (redirection.kind) {
    case Redirection::Kind::none: return NextStep::done;
    case Redirection::Kind::refresh: return NextStep::give_up;
    case Redirection::Kind::moved:
    case Redirection::Kind::ask: break;
    }
    return redirections_so_far < k_max_redirections ? NextStep::follow : NextStep::give_up;
}

} // namespace wr::state
