// Building the reconcile script's calls and reading their answers.
#include "state/reconcile_call.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <optional>
#include <set>

#include "state/count_log.h"
#include "state/store_keys.h"
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

// Numbers travel packed as reconcile.lua's struct formats read them: IEEE 754 doubles,
// little-endian (struct's 'd' is the cheapest of its formats to read and write in Lua, and every
// number the two exchange is an integer below 2^53, exact in a double).
void append_packed(std::string& out, int64_t value) {
    const double number = static_cast<double>(value);
    uint64_t bits = 0;
    std::memcpy(&bits, &number, sizeof bits);
    for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xff);
}

// nullopt for anything but 8 bytes holding an integer a double holds exactly.
std::optional<int64_t> unpacked(std::string_view bytes) {
    if (bytes.size() != 8) return std::nullopt;
    uint64_t bits = 0;
    for (int i = 7; i >= 0; --i) bits = (bits << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
    double number = 0;
    std::memcpy(&number, &bits, sizeof number);
    constexpr double k_exact = 9007199254740992.0; // 2^53
    if (!(number >= -k_exact && number <= k_exact) || number != std::floor(number)) return std::nullopt;
    return static_cast<int64_t>(number);
}

} // namespace

int64_t node_number(std::string_view node_id) {
    // FNV-1a, cut to 52 bits (exact in a Lua number) and never 0 (no merger).
    uint64_t hash = 14695981039346656037ull;
    for (const char c : node_id) hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    return static_cast<int64_t>((hash & ((uint64_t{1} << 52) - 1)) | 1);
}

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
                 std::to_string(node_number(node_id)),
                 std::to_string(pushes.empty() ? 0 : pushes.front()->now_ms),
                 std::to_string(timing.node_liveness_ms),
                 std::to_string(timing.grant_validity_ms),
                 std::to_string(k_room_ttl_seconds),
                 server,
                 std::to_string(pushes.size())};
    for (const RoomPush* push : pushes) {
        keys.push_back(room_key_prefix(push->room_id) + "counts");
        // The room's numbers and every batch's come packed in one argument (each argument costs
        // Redis a parse, an object and a Lua string); byte strings the script stores as they are
        // follow it, the snapshot and the digest only when there is one.
        const size_t numbers_at = arguments.size();
        arguments.emplace_back(); // the numbers, once the room's number of arguments is known
        arguments.push_back(push->contribution);
        if (push->snapshot) {
            std::string snapshot;
            append_record(snapshot, *push->snapshot);
            arguments.push_back(std::move(snapshot));
        }
        if (push->digest_to > push->digest_from) {
            std::string digest;
            append_record(digest, push->digest);
            arguments.push_back(std::move(digest));
        }
        std::string batches;
        for (const PushedBatch& batch : push->batches) {
            std::vector<std::string> revocations, seeds;
            std::string admissions;
            int64_t n_admissions = 0;
            for (const queue::LedgerChange& change : batch.changes) {
                if (is_admission_count(change)) {
                    append_packed(admissions, change.kind == Kind::active ? 0 : 1);
                    append_packed(admissions, change.key);
                    append_packed(admissions, change.delta);
                    ++n_admissions;
                } else if (change.kind == Kind::revoked) {
                    revocations.push_back(std::to_string(static_cast<uint64_t>(change.key)));
                    revocations.push_back(std::to_string(change.minute));
                } else if (change.kind == Kind::release_seed) {
                    seeds.push_back(std::to_string(change.key));
                    seeds.push_back(std::to_string(change.minute));
                }
            }
            for (const int64_t value : {static_cast<int64_t>(batch.sequence), n_admissions, static_cast<int64_t>(revocations.size() / 2),
                                        static_cast<int64_t>(seeds.size() / 2), static_cast<int64_t>(batch.joins.size())})
                append_packed(batches, value);
            batches += admissions;
            std::string record;
            append_record(record, batch.changes);
            arguments.push_back(std::move(record));
            arguments.insert(arguments.end(), revocations.begin(), revocations.end());
            arguments.insert(arguments.end(), seeds.begin(), seeds.end());
            for (const JoinChange& join : batch.joins)
                arguments.insert(arguments.end(), {std::to_string(join.minute), hex_of(join.address), std::to_string(join.delta)});
        }
        std::string& numbers = arguments[numbers_at];
        for (const int64_t value : {static_cast<int64_t>(arguments.size() - numbers_at), int64_t{push->read_only}, push->total_active_users,
                                    push->new_users_per_minute, push->session_minutes, push->demand_rate_milli, push->share_weight_milli,
                                    push->in_flight_allowance, push->revocation_cursor, static_cast<int64_t>(push->acknowledged_sequence),
                                    push->version, push->generation, static_cast<int64_t>(push->batches.size()),
                                    int64_t{push->snapshot.has_value()}, push->digest_from, push->digest_to, push->epoch,
                                    int64_t{push->want_seeds}})
            append_packed(numbers, value);
        numbers += batches;
    }
    std::vector<std::string> out = {"EVALSHA", sha, std::to_string(keys.size())};
    out.insert(out.end(), std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
    out.insert(out.end(), std::make_move_iterator(arguments.begin()), std::make_move_iterator(arguments.end()));
    return out;
}

namespace {

RoomReply parse_room(const redisReply* reply) {
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements < 2) malformed("not the answer of a room");
    const redisReply* numbers = element(reply, 0, REDIS_REPLY_STRING, "numbers");
    constexpr size_t k_numbers = 22;
    if (numbers->len != 8 * k_numbers) malformed("numbers of " + std::to_string(numbers->len) + " bytes");
    int64_t number[k_numbers];
    for (size_t i = 0; i < k_numbers; ++i) {
        const auto value = unpacked(std::string_view(numbers->str + 8 * i, 8));
        if (!value) malformed("a number that is not an integer");
        number[i] = *value;
    }
    RoomReply out;
    switch (number[0]) {
    case 0: break;
    case 1: out.status = RoomReply::Status::epoch_changed; break;
    case 2: out.status = RoomReply::Status::lost; break;
    case 3:
        out.status = RoomReply::Status::failed;
        out.error = reply_text(element(reply, 1, REDIS_REPLY_STRING, "error"));
        return out;
    default: malformed("status " + std::to_string(number[0]));
    }
    out.epoch = number[1];
    out.stored_sequence_before = static_cast<uint64_t>(number[2]);
    out.version = number[3];
    out.generation = number[4];
    out.revocation_cursor = number[5];
    out.grant = Grant{number[6], number[7], number[8]};
    out.share = static_cast<double>(number[9]) / 1e6;
    out.live_nodes = number[10];
    out.whole = number[11] != 0;
    out.snapshot_wanted = number[12] != 0;
    out.earlier_release = number[13] != 0;
    out.merger = number[14] != 0;
    out.digested = number[15];
    out.own_last_record = number[16];
    const int64_t digests = number[17], raw = number[18], seeds = number[19], revocations = number[20], joins = number[21];
    if (std::min({digests, raw, seeds, revocations, joins}) < 0 ||
        2 + digests + raw + 2 * seeds + revocations + 2 * joins != static_cast<int64_t>(reply->elements))
        malformed("an answer of " + std::to_string(reply->elements) + " parts for what its numbers count");
    out.stored_contribution = reply_text(element(reply, 1, REDIS_REPLY_STRING, "contribution"));

    size_t at = 2;
    // Records: the digests (after the snapshot, when whole) and the merger's raw ones.
    const auto records = [&](int64_t count, const char* what, std::vector<queue::LedgerChange>& into) {
        for (int64_t i = 0; i < count; ++i, ++at) {
            const redisReply* item = reply->element[at];
            if (item->type != REDIS_REPLY_STRING || !read_records(std::string_view(item->str, item->len), into))
                malformed(std::string(what) + " that are not records of count changes");
        }
    };
    records(digests, "digests", out.changes);
    records(raw, "raw records", out.raw);
    out.raw_records = raw;
    for (int64_t i = 0; i < seeds; ++i, at += 2)
        out.seeds.emplace_back(integer_of(reply->element[at], "seed minute"), number_in(reply_text(reply->element[at + 1]), "seed"));
    for (int64_t i = 0; i < revocations; ++i, ++at) {
        const std::string entry = reply_text(reply->element[at]);
        const size_t colon = entry.rfind(':');
        if (colon == std::string::npos) malformed("revocation '" + entry + "'");
        out.revocations.emplace_back(unsigned_in(std::string_view(entry).substr(0, colon), "session"),
                                     number_in(std::string_view(entry).substr(colon + 1), "revocation end"));
    }
    for (int64_t i = 0; i < joins; ++i, at += 2) {
        const std::string hex = reply_text(reply->element[at]);
        const auto address = address_of(hex);
        if (!address) malformed("address '" + hex + "'");
        out.joins.emplace_back(*address, integer_of(reply->element[at + 1], "joins"));
    }
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
