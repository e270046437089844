// The shared store on Redis: connection, Sentinel discovery, and the pipelined script calls.
#include "state/redis_store.h"

#include <hiredis/hiredis.h>

#include <cinttypes>
#include <memory>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "state/store_fields.h"
#include "util/embedded_files.h"

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

constexpr size_t k_rooms_per_call = 100;

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

// Numbers travel packed, as reconcile.lua's struct formats read them: little-endian 64-bit.
void append_packed(std::string& out, int64_t value) {
    for (int i = 0; i < 8; ++i) out += static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff);
}

std::optional<int64_t> unpacked(std::string_view bytes) {
    if (bytes.size() != 8) return std::nullopt;
    uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
    return static_cast<int64_t>(value);
}

// One EVALSHA covering `pushes` (rooms of one server, synced at one moment): the keys and
// arguments in the order reconcile.lua reads them.
std::vector<std::string> script_call(const std::string& sha, const std::string& server, const std::string& node_id,
                                     const std::vector<const RoomPush*>& pushes, const StoreTiming& timing) {
    std::vector<std::string> keys, arguments;
    arguments = {node_id,
                 std::to_string(pushes.empty() ? 0 : pushes.front()->now_ms),
                 std::to_string(timing.node_liveness_ms),
                 std::to_string(timing.grant_validity_ms),
                 std::to_string(k_room_ttl_seconds),
                 server,
                 std::to_string(pushes.size())};
    for (const RoomPush* push : pushes) {
        const std::string prefix = "wr:{" + push->room_id + "}:";
        std::set<int64_t> join_minutes;
        for (const PushedBatch& batch : push->batches)
            for (const JoinChange& join : batch.joins) join_minutes.insert(join.minute);
        for (const char* name : {"state", "nodes", "chg", "rev"}) keys.push_back(prefix + name);
        for (const int64_t minute : join_minutes) keys.push_back(prefix + "joins:" + std::to_string(minute));
        std::string header;
        for (const int64_t value : {static_cast<int64_t>(4 + join_minutes.size()), int64_t{push->read_only}, push->total_active_users,
                                    push->new_users_per_minute, push->session_minutes, push->demand_rate_milli, push->share_weight_milli,
                                    push->in_flight_allowance, push->revocation_cursor, static_cast<int64_t>(push->acknowledged_sequence),
                                    push->version, push->generation, static_cast<int64_t>(join_minutes.size()),
                                    static_cast<int64_t>(push->batches.size())})
            append_packed(header, value);
        arguments.push_back(std::move(header));
        arguments.push_back(push->epoch);
        arguments.push_back(push->contribution);
        for (const int64_t minute : join_minutes) arguments.push_back(std::to_string(minute));
        for (const PushedBatch& batch : push->batches) {
            std::vector<std::string> fields, revocations, seeds;
            std::string deltas;
            for (const queue::LedgerChange& change : batch.changes) {
                if (const auto field = field_of(change)) {
                    fields.push_back(*field);
                    append_packed(deltas, change.delta);
                } else if (change.kind == Kind::revoked) {
                    revocations.push_back(std::to_string(static_cast<uint64_t>(change.key)));
                    revocations.push_back(std::to_string(change.minute));
                } else if (change.kind == Kind::release_seed) {
                    seeds.push_back(std::to_string(change.key));
                    seeds.push_back(std::to_string(change.minute));
                }
            }
            std::string counts;
            for (const int64_t value : {static_cast<int64_t>(batch.sequence), static_cast<int64_t>(fields.size()),
                                        static_cast<int64_t>(revocations.size() / 2), static_cast<int64_t>(seeds.size() / 2),
                                        static_cast<int64_t>(batch.joins.size())})
                append_packed(counts, value);
            arguments.push_back(std::move(counts));
            arguments.push_back(std::move(deltas));
            arguments.insert(arguments.end(), std::make_move_iterator(fields.begin()), std::make_move_iterator(fields.end()));
            arguments.insert(arguments.end(), revocations.begin(), revocations.end());
            arguments.insert(arguments.end(), seeds.begin(), seeds.end());
            for (const JoinChange& join : batch.joins)
                arguments.insert(arguments.end(), {std::to_string(join.minute), hex_of(join.address), std::to_string(join.delta)});
        }
    }
    std::vector<std::string> out = {"EVALSHA", sha, std::to_string(keys.size())};
    out.insert(out.end(), std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
    out.insert(out.end(), std::make_move_iterator(arguments.begin()), std::make_move_iterator(arguments.end()));
    return out;
}

RoomReply parse_room(const redisReply* reply) {
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements < 17) malformed("not the 17 fields of a room");
    RoomReply out;
    const std::string status = text_of(element(reply, 0, REDIS_REPLY_STRING, "status"));
    if (status == "failed") {
        out.status = RoomReply::Status::failed;
        out.error = text_of(reply->element[16]);
        return out;
    }
    if (status == "epoch") out.status = RoomReply::Status::epoch_changed;
    else if (status == "lost") out.status = RoomReply::Status::lost;
    else if (status != "ok") malformed("status '" + status + "'");
    out.epoch = text_of(element(reply, 1, REDIS_REPLY_STRING, "epoch"));
    out.stored_sequence_before = static_cast<uint64_t>(integer_of(reply->element[2], "last batch"));
    out.version = integer_of(reply->element[3], "version");
    out.generation = integer_of(reply->element[4], "generation");

    const auto pairs = [&](size_t index, const char* what, auto&& each) {
        const redisReply* list = element(reply, index, REDIS_REPLY_ARRAY, what);
        if (list->elements % 2 != 0) malformed(what);
        for (size_t i = 0; i < list->elements; i += 2) each(text_of(list->element[i]), list->element[i + 1]);
    };
    pairs(5, "changed counts", [&](const std::string& field, const redisReply* count) {
        // A count the store dropped meanwhile comes back empty: zero.
        const std::string bytes = text_of(count);
        const auto value = bytes.empty() ? std::optional<int64_t>{0} : unpacked(bytes);
        const auto change = value ? change_of(field, *value) : std::nullopt;
        if (!change) malformed("count field '" + field + "'");
        out.changed.push_back(*change);
    });
    pairs(6, "seeds", [&](const std::string& minute, const redisReply* seed) {
        out.changed.push_back({Kind::release_seed, number_in(minute, "seed minute"), number_in(text_of(seed), "seed"), 0});
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
    out.grant = Grant{integer_of(reply->element[10], "grant"), integer_of(reply->element[11], "grant"), integer_of(reply->element[12], "grant")};
    out.share = static_cast<double>(integer_of(reply->element[13], "share")) / 1e6;
    out.live_nodes = integer_of(reply->element[14], "live nodes");
    out.stored_contribution = text_of(element(reply, 15, REDIS_REPLY_STRING, "contribution"));
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
    if (const char* path = std::getenv("WR_EXPERIMENT_SCRIPT"); path && *path) {
        static std::string text;
        FILE* f = std::fopen(path, "r");
        char buffer[65536];
        text.assign(buffer, std::fread(buffer, 1, sizeof buffer, f));
        std::fclose(f);
        return text;
    }
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
    // One script call per hundred rooms synced at the same moment (a call holds the server for
    // its length: a hundred rooms take about a millisecond), all in one pipeline.
    std::vector<std::vector<const RoomPush*>> calls;
    for (const RoomPush& push : pushes) {
        if (calls.empty() || calls.back().size() >= k_rooms_per_call || calls.back().front()->now_ms != push.now_ms) calls.emplace_back();
        calls.back().push_back(&push);
    }
    for (const auto& call : calls) {
        const std::vector<std::string> arguments = script_call(m_sha, m_server, node_id, call, timing);
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
    for (size_t i = 0; i < calls.size(); ++i) {
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
    // A room the script failed on (one of its keys damaged) fails alone; the others go on.
    std::vector<RoomReply> replies;
    replies.reserve(pushes.size());
    for (size_t c = 0; c < calls.size(); ++c) {
        const redisReply* answer = answers[c].get();
        const bool whole = answer->type == REDIS_REPLY_ARRAY && answer->elements == calls[c].size();
        for (size_t r = 0; r < calls[c].size(); ++r) {
            if (!whole) {
                replies.push_back(failed_room(answer->type == REDIS_REPLY_ERROR ? text_of(answer) : "not an answer per room"));
                continue;
            }
            try {
                replies.push_back(parse_room(answer->element[r]));
            } catch (const StoreUnavailable& error) {
                replies.push_back(failed_room(error.what()));
            }
        }
    }
    return replies;
}

} // namespace wr::state
