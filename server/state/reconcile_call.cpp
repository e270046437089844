// Building the reconcile script's calls and reading their answers.
#include "state/reconcile_call.h"

#include <hiredis/hiredis.h>

#include <cstdio>
#include <optional>
#include <set>

#include "state/store_fields.h"
#include "util/embedded_files.h"

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

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

} // namespace

std::string reply_text(const redisReply* reply) {
    if (!reply) return "";
    if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS || reply->type == REDIS_REPLY_ERROR)
        return std::string(reply->str, reply->len);
    if (reply->type == REDIS_REPLY_INTEGER) return std::to_string(reply->integer);
    return "";
}

std::string_view reconcile_script() {
    const auto text = util::embedded_file("server/state/reconcile.lua");
    return text ? *text : std::string_view{};
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

namespace {

RoomReply parse_room(const redisReply* reply) {
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements < 17) malformed("not the 17 fields of a room");
    RoomReply out;
    const std::string status = reply_text(element(reply, 0, REDIS_REPLY_STRING, "status"));
    if (status == "failed") {
        out.status = RoomReply::Status::failed;
        out.error = reply_text(reply->element[16]);
        return out;
    }
    if (status == "epoch") out.status = RoomReply::Status::epoch_changed;
    else if (status == "lost") out.status = RoomReply::Status::lost;
    else if (status != "ok") malformed("status '" + status + "'");
    out.epoch = reply_text(element(reply, 1, REDIS_REPLY_STRING, "epoch"));
    out.stored_sequence_before = static_cast<uint64_t>(integer_of(reply->element[2], "last batch"));
    out.version = integer_of(reply->element[3], "version");
    out.generation = integer_of(reply->element[4], "generation");

    const auto pairs = [&](size_t index, const char* what, auto&& each) {
        const redisReply* list = element(reply, index, REDIS_REPLY_ARRAY, what);
        if (list->elements % 2 != 0) malformed(what);
        for (size_t i = 0; i < list->elements; i += 2) each(reply_text(list->element[i]), list->element[i + 1]);
    };
    pairs(5, "changed counts", [&](const std::string& field, const redisReply* count) {
        // A count the store dropped meanwhile comes back empty: zero.
        const std::string bytes = reply_text(count);
        const auto value = bytes.empty() ? std::optional<int64_t>{0} : unpacked(bytes);
        const auto change = value ? change_of(field, *value) : std::nullopt;
        if (!change) malformed("count field '" + field + "'");
        out.changed.push_back(*change);
    });
    pairs(6, "seeds", [&](const std::string& minute, const redisReply* seed) {
        out.changed.push_back({Kind::release_seed, number_in(minute, "seed minute"), number_in(reply_text(seed), "seed"), 0});
    });
    const redisReply* revocations = element(reply, 7, REDIS_REPLY_ARRAY, "revocations");
    for (size_t i = 0; i < revocations->elements; ++i) {
        const std::string entry = reply_text(revocations->element[i]);
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
    out.stored_contribution = reply_text(element(reply, 15, REDIS_REPLY_STRING, "contribution"));
    return out;
}

} // namespace

void read_call_answer(const redisReply* answer, size_t rooms, std::vector<RoomReply>& out) {
    const bool whole = answer->type == REDIS_REPLY_ARRAY && answer->elements == rooms;
    for (size_t r = 0; r < rooms; ++r) {
        if (!whole) {
            out.push_back(failed_room(answer->type == REDIS_REPLY_ERROR ? reply_text(answer) : "not an answer per room"));
            continue;
        }
        try {
            out.push_back(parse_room(answer->element[r]));
        } catch (const StoreUnavailable& error) {
            out.push_back(failed_room(error.what()));
        }
    }
}

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

} // namespace wr::state
