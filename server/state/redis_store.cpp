// The shared store on Redis: connection, Sentinel discovery, and the pipelined script calls.
#include "state/redis_store.h"

#include <hiredis/hiredis.h>

#include <cinttypes>
#include <memory>
#include <optional>
#include <cstdio>
#include <set>

#include "util/embedded_files.h"

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

struct ReplyDeleter {
    void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

timeval to_timeval(util::Milliseconds duration) {
    return timeval{static_cast<time_t>(duration.count() / 1000), static_cast<suseconds_t>((duration.count() % 1000) * 1000)};
}

std::string endpoint_text(const RedisEndpoint& endpoint) {
    const bool v6 = endpoint.host.find(':') != std::string::npos;
    return (v6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + std::to_string(endpoint.port);
}

// Runs one command; nullptr when the connection failed (the context says why).
Reply command(redisContext* context, const std::vector<std::string>& arguments) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const std::string& argument : arguments) {
        argv.push_back(argument.data());
        lengths.push_back(argument.size());
    }
    return Reply(static_cast<redisReply*>(redisCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data())));
}

std::string text_of(const redisReply* reply) {
    if (!reply) return "";
    if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS || reply->type == REDIS_REPLY_ERROR)
        return std::string(reply->str, reply->len);
    if (reply->type == REDIS_REPLY_INTEGER) return std::to_string(reply->integer);
    return "";
}

std::string hex_of(const queue::ClientAddress& address) {
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string out(32, '0');
    for (size_t i = 0; i < address.size(); ++i) {
        out[2 * i] = k_digits[address[i] >> 4];
        out[2 * i + 1] = k_digits[address[i] & 15];
    }
    return out;
}

std::optional<queue::ClientAddress> address_of(std::string_view hex) {
    if (hex.size() != 32) return std::nullopt;
    queue::ClientAddress address{};
    for (size_t i = 0; i < 16; ++i) {
        unsigned value = 0;
        if (std::sscanf(std::string(hex.substr(2 * i, 2)).c_str(), "%2x", &value) != 1) return std::nullopt;
        address[i] = static_cast<uint8_t>(value);
    }
    return address;
}

[[noreturn]] void malformed(const std::string& what) { throw StoreUnavailable("unexpected answer from the reconcile script: " + what, true); }

int64_t integer_of(const redisReply* reply, const char* what) {
    if (reply && reply->type == REDIS_REPLY_INTEGER) return reply->integer;
    if (reply && reply->type == REDIS_REPLY_STRING) {
        try {
            size_t used = 0;
            const int64_t value = std::stoll(std::string(reply->str, reply->len), &used);
            if (used == reply->len) return value;
        } catch (const std::exception&) {
        }
    }
    malformed(what);
}

const redisReply* element(const redisReply* reply, size_t index, int type, const char* what) {
    if (!reply || reply->type != REDIS_REPLY_ARRAY || index >= reply->elements || reply->element[index]->type != type) malformed(what);
    return reply->element[index];
}

int64_t number_in(std::string_view text, const char* what) {
    try {
        size_t used = 0;
        const int64_t value = std::stoll(std::string(text), &used);
        if (used == text.size()) return value;
    } catch (const std::exception&) {
    }
    malformed(what);
}

uint64_t unsigned_in(std::string_view text, const char* what) {
    try {
        size_t used = 0;
        const uint64_t value = std::stoull(std::string(text), &used);
        if (used == text.size()) return value;
    } catch (const std::exception&) {
    }
    malformed(what);
}

std::vector<std::string> script_arguments(const std::string& sha, const std::string& server, const std::string& node_id, const RoomPush& push,
                                          const StoreTiming& timing) {
    const std::string prefix = "wr:{" + push.room_id + "}:";
    std::set<int64_t> join_minutes;
    for (const PushedBatch& batch : push.batches)
        for (const JoinChange& join : batch.joins) join_minutes.insert(join.minute);
    std::vector<std::string> keys = {prefix + "meta",    prefix + "active", prefix + "waiting", prefix + "admitted",
                                     prefix + "revoked", prefix + "nodes",  prefix + "seq",    prefix + "slots",
                                     prefix + "own"};
    for (const int64_t minute : join_minutes) keys.push_back(prefix + "joins:" + std::to_string(minute));

    char weight[32], share_weight[32];
    std::snprintf(weight, sizeof weight, "%.3f", push.demand_weight);
    std::snprintf(share_weight, sizeof share_weight, "%.3f", push.share_weight);
    std::vector<std::string> out = {"EVALSHA", sha, std::to_string(keys.size())};
    out.insert(out.end(), keys.begin(), keys.end());
    for (const std::string& argument :
         {node_id, push.epoch, std::to_string(push.now_ms), std::to_string(push.total_active_users),
          std::to_string(push.new_users_per_minute), std::to_string(push.session_minutes), std::string(weight),
          std::to_string(timing.node_liveness_ms), std::to_string(timing.grant_validity_ms), std::to_string(push.revocation_cursor),
          std::to_string(k_room_ttl_seconds), std::string(push.read_only ? "1" : "0"), std::string(share_weight),
          std::to_string(push.in_flight_allowance), server, std::to_string(push.acknowledged_sequence), push.contribution,
          std::to_string(join_minutes.size())})
        out.push_back(argument);
    for (const int64_t minute : join_minutes) out.push_back(std::to_string(minute));
    out.push_back(std::to_string(push.batches.size()));
    for (const PushedBatch& batch : push.batches) {
        out.push_back(std::to_string(batch.sequence));
        out.push_back(std::to_string(batch.changes.size()));
        out.push_back(std::to_string(batch.joins.size()));
        for (const queue::LedgerChange& change : batch.changes) {
            switch (change.kind) {
            case Kind::active: out.insert(out.end(), {"a", std::to_string(change.key), "0"}); break;
            case Kind::waiting: out.insert(out.end(), {"w", std::to_string(change.key), std::to_string(change.minute)}); break;
            case Kind::admitted: out.insert(out.end(), {"m", std::to_string(change.key), "0"}); break;
            case Kind::revoked:
                out.insert(out.end(), {"r", std::to_string(static_cast<uint64_t>(change.key)), std::to_string(change.minute)});
                break;
            case Kind::release_seed: out.insert(out.end(), {"s", std::to_string(change.key), std::to_string(change.minute)}); break;
            case Kind::arrived: out.insert(out.end(), {"v", std::to_string(change.key), "0"}); break;
            case Kind::checked_in: out.insert(out.end(), {"c", std::to_string(change.key), "0"}); break;
            case Kind::browsed: out.insert(out.end(), {"b", std::to_string(change.key), "0"}); break;
            }
            out.push_back(std::to_string(change.delta));
        }
        for (const JoinChange& join : batch.joins)
            out.insert(out.end(), {std::to_string(join.minute), hex_of(join.address), std::to_string(join.delta)});
    }
    return out;
}

RoomReply parse_reply(const redisReply* reply) {
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements < 15) malformed("not the 15 fields of a room");
    RoomReply out;
    const std::string status = text_of(element(reply, 0, REDIS_REPLY_STRING, "status"));
    if (status == "epoch") out.status = RoomReply::Status::epoch_changed;
    else if (status == "lost") out.status = RoomReply::Status::lost;
    else if (status != "ok") malformed("status '" + status + "'");
    out.stored_contribution = text_of(element(reply, 14, REDIS_REPLY_STRING, "contribution"));
    out.epoch = text_of(element(reply, 1, REDIS_REPLY_STRING, "epoch"));
    out.stored_sequence_before = static_cast<uint64_t>(integer_of(reply->element[2], "last batch"));

    const auto pairs = [&](size_t index, const char* what, auto&& each) {
        const redisReply* list = element(reply, index, REDIS_REPLY_ARRAY, what);
        if (list->elements % 2 != 0) malformed(what);
        for (size_t i = 0; i < list->elements; i += 2) each(text_of(list->element[i]), list->element[i + 1]);
    };
    pairs(3, "active", [&](const std::string& minute, const redisReply* users) {
        out.counts.push_back({Kind::active, number_in(minute, "active minute"), 0, integer_of(users, "active users")});
    });
    pairs(4, "waiting", [&](const std::string& field, const redisReply* users) {
        const size_t colon = field.find(':');
        if (colon == std::string::npos) malformed("waiting field '" + field + "'");
        out.counts.push_back({Kind::waiting, number_in(std::string_view(field).substr(0, colon), "bucket"),
                              number_in(std::string_view(field).substr(colon + 1), "waiting minute"), integer_of(users, "waiting users")});
    });
    pairs(5, "admitted", [&](const std::string& minute, const redisReply* admissions) {
        out.counts.push_back({Kind::admitted, number_in(minute, "admitted minute"), 0, integer_of(admissions, "admissions")});
    });
    pairs(6, "seeds", [&](const std::string& minute, const redisReply* seed) {
        out.counts.push_back({Kind::release_seed, number_in(minute, "seed minute"), number_in(text_of(seed), "seed"), 0});
    });
    const redisReply* revocations = element(reply, 7, REDIS_REPLY_ARRAY, "revocations");
    for (size_t i = 0; i < revocations->elements; ++i) {
        const std::string entry = text_of(revocations->element[i]);
        const size_t colon = entry.rfind(':');
        if (colon == std::string::npos) malformed("revocation '" + entry + "'");
        out.revocations.emplace_back(unsigned_in(std::string_view(entry).substr(0, colon), "session"),
                                     number_in(std::string_view(entry).substr(colon + 1), "revocation end"));
    }
    out.revocation_cursor = integer_of(reply->element[8], "revocation cursor");
    pairs(9, "joins", [&](const std::string& hex, const redisReply* joins) {
        const auto address = address_of(hex);
        if (!address) malformed("address '" + hex + "'");
        out.joins.emplace_back(*address, integer_of(joins, "joins"));
    });
    const redisReply* grant = element(reply, 10, REDIS_REPLY_ARRAY, "grant");
    if (grant->elements != 3) malformed("grant");
    out.grant = Grant{integer_of(grant->element[0], "grant"), integer_of(grant->element[1], "grant"), integer_of(grant->element[2], "grant")};
    try {
        out.share = std::stod(text_of(element(reply, 11, REDIS_REPLY_STRING, "share")));
    } catch (const std::exception&) {
        malformed("share");
    }
    out.live_nodes = integer_of(reply->element[12], "live nodes");
    pairs(13, "slots", [&](const std::string& field, const redisReply* count) {
        // v:slot (arrivals into the queue), c:slot (check-ins of waiting users) or b:slot
        // (milliseconds between admitted users' requests)
        if (field.size() < 3 || field[1] != ':' || (field[0] != 'v' && field[0] != 'c' && field[0] != 'b'))
            malformed("slot field '" + field + "'");
        const Kind kind = field[0] == 'v' ? Kind::arrived : field[0] == 'c' ? Kind::checked_in : Kind::browsed;
        out.counts.push_back({kind, number_in(std::string_view(field).substr(2), "slot"), 0, integer_of(count, "slot count")});
    });
    return out;
}

// Errors about the server rather than one room's keys: the whole round fails.
bool is_server_error(std::string_view error) {
    for (const std::string_view prefix : {"READONLY", "NOSCRIPT", "LOADING", "MASTERDOWN", "BUSY", "NOAUTH", "NOPERM", "OOM",
                                          "MISCONF", "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "CROSSSLOT", "ERR unknown command"})
        if (error.starts_with(prefix)) return true;
    return false;
}

RoomReply failed_room(std::string error) {
    RoomReply reply;
    reply.status = RoomReply::Status::failed;
    reply.error = std::move(error);
    return reply;
}

} // namespace

std::string_view RedisStore::script() {
    const auto text = util::embedded_file("server/state/reconcile.lua");
    return text ? *text : std::string_view{};
}

RedisStore::RedisStore(RedisStoreOptions options) : m_options(std::move(options)) {
    if (!m_options.url.endpoints.empty()) m_master = m_options.url.endpoints.front();
}

RedisStore::~RedisStore() { disconnect(); }

std::string RedisStore::describe() const {
    if (m_options.url.kind == StateUrl::Kind::sentinel && m_context)
        return m_options.url.describe() + " (master " + endpoint_text(m_master) + ")";
    return m_options.url.describe();
}

void RedisStore::disconnect() {
    if (m_context) redisFree(m_context);
    m_context = nullptr;
}

redisContext* RedisStore::open(const RedisEndpoint& endpoint, const char* role) {
    redisContext* context = redisConnectWithTimeout(endpoint.host.c_str(), endpoint.port, to_timeval(m_options.connect_timeout));
    if (!context) throw StoreUnavailable(std::string("cannot connect to ") + role + " " + endpoint_text(endpoint), false);
    if (context->err) {
        const std::string why = context->errstr;
        redisFree(context);
        throw StoreUnavailable(std::string("cannot connect to ") + role + " " + endpoint_text(endpoint) + ": " + why, false);
    }
    redisSetTimeout(context, to_timeval(m_options.command_timeout));
    return context;
}

RedisEndpoint RedisStore::discover_master() {
    const std::vector<RedisEndpoint>& sentinels = m_options.url.endpoints;
    std::string failures;
    for (size_t i = 0; i < sentinels.size(); ++i) {
        const size_t index = (m_next_sentinel + i) % sentinels.size();
        const RedisEndpoint& sentinel = sentinels[index];
        std::string why;
        try {
            redisContext* context = open(sentinel, "Sentinel");
            const Reply reply = command(context, {"SENTINEL", "get-master-addr-by-name", m_options.url.master_name});
            if (!reply) {
                why = context->errstr;
            } else if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 2) {
                RedisEndpoint master{text_of(reply->element[0]), 0};
                try {
                    master.port = std::stoi(text_of(reply->element[1]));
                } catch (const std::exception&) {
                }
                if (master.port > 0) {
                    redisFree(context);
                    m_next_sentinel = index;
                    return master;
                }
                why = "answered an address that is not one";
            } else if (reply->type == REDIS_REPLY_ERROR) {
                why = text_of(reply.get());
            } else {
                why = "knows no master named '" + m_options.url.master_name + "'";
            }
            redisFree(context);
        } catch (const StoreUnavailable& error) {
            why = error.what();
        }
        failures += (failures.empty() ? "" : "; ") + endpoint_text(sentinel) + ": " + why;
    }
    throw StoreUnavailable("no Sentinel named the master '" + m_options.url.master_name + "' (" + failures + ")", false);
}

void RedisStore::connect() {
    const RedisEndpoint endpoint = m_options.url.kind == StateUrl::Kind::sentinel ? discover_master() : m_options.url.endpoints.front();
    redisContext* context = open(endpoint, "redis");
    const auto fail = [&](const std::string& why) {
        redisFree(context);
        throw StoreUnavailable("redis " + endpoint_text(endpoint) + ": " + why, false);
    };
    const auto run = [&](const std::vector<std::string>& arguments, const char* what) {
        Reply reply = command(context, arguments);
        if (!reply) fail(std::string(what) + ": " + context->errstr);
        if (reply->type == REDIS_REPLY_ERROR) fail(std::string(what) + ": " + text_of(reply.get()));
        return reply;
    };
    if (!m_options.url.password.empty()) {
        if (m_options.url.username.empty()) run({"AUTH", m_options.url.password}, "AUTH");
        else run({"AUTH", m_options.url.username, m_options.url.password}, "AUTH");
    }
    if (m_options.url.database != 0) run({"SELECT", std::to_string(m_options.url.database)}, "SELECT");
    // A replica would refuse the script's writes; Sentinel may name a master that has just
    // become a replica. Either way, not this one.
    const Reply role = run({"ROLE"}, "ROLE");
    if (role->type != REDIS_REPLY_ARRAY || role->elements == 0 || text_of(role->element[0]) != "master")
        fail("is a " + (role->type == REDIS_REPLY_ARRAY && role->elements ? text_of(role->element[0]) : std::string("server")) +
             ", not the master");
    // The server's identity: a room whose state another server wrote (a promoted replica, a
    // restart) holds its grants until every node has synced (reconcile.lua).
    const Reply info = run({"INFO", "server"}, "INFO");
    const std::string text = text_of(info.get());
    const size_t run_id = text.find("run_id:");
    if (run_id == std::string::npos) fail("INFO server has no run_id");
    m_server = text.substr(run_id + 7, text.find_first_of("\r\n", run_id) - run_id - 7);
    const Reply loaded = run({"SCRIPT", "LOAD", std::string(script())}, "SCRIPT LOAD");
    m_sha = text_of(loaded.get());
    m_context = context;
    m_master = endpoint;
}

std::vector<RoomReply> RedisStore::exchange(const std::string& node_id, const std::vector<RoomPush>& pushes, const StoreTiming& timing) {
    if (!m_context) connect();
    std::vector<std::vector<std::string>> commands;
    commands.reserve(pushes.size());
    for (const RoomPush& push : pushes) commands.push_back(script_arguments(m_sha, m_server, node_id, push, timing));
    for (const auto& arguments : commands) {
        std::vector<const char*> argv;
        std::vector<size_t> lengths;
        for (const std::string& argument : arguments) {
            argv.push_back(argument.data());
            lengths.push_back(argument.size());
        }
        redisAppendCommandArgv(m_context, static_cast<int>(argv.size()), argv.data(), lengths.data());
    }
    // Read every answer, even after an error one, so the connection stays in step.
    std::vector<Reply> answers;
    std::string server_error;
    for (size_t i = 0; i < commands.size(); ++i) {
        void* raw = nullptr;
        if (redisGetReply(m_context, &raw) != REDIS_OK) {
            const std::string why = m_context->errstr;
            disconnect();
            throw StoreUnavailable("lost the connection to redis " + endpoint_text(m_master) + ": " + why, true);
        }
        Reply reply(static_cast<redisReply*>(raw));
        if (reply->type == REDIS_REPLY_ERROR && server_error.empty() && is_server_error(text_of(reply.get())))
            server_error = text_of(reply.get());
        answers.push_back(std::move(reply));
    }
    if (!server_error.empty()) {
        // READONLY: the master became a replica (a failover); NOSCRIPT: the script cache was
        // emptied. Both: connect again, rediscovering the master, and load the script anew.
        disconnect();
        throw StoreUnavailable("redis " + endpoint_text(m_master) + " answered: " + server_error, true);
    }
    // Any other error is the room's own (the script failed on one of its keys): that room
    // fails, the others go on.
    std::vector<RoomReply> replies;
    replies.reserve(answers.size());
    for (const Reply& answer : answers) {
        if (answer->type == REDIS_REPLY_ERROR) {
            replies.push_back(failed_room(text_of(answer.get())));
            continue;
        }
        try {
            replies.push_back(parse_reply(answer.get()));
        } catch (const StoreUnavailable& error) {
            replies.push_back(failed_room(error.what()));
        }
    }
    return replies;
}

} // namespace wr::state
