// Records of count changes, as the shared store keeps them.
#include "state/count_log.h"

#include <array>

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

constexpr uint8_t k_format = 1;
// The kinds travel as their numbers: a reordered enum would misread every stored record.
static_assert(static_cast<int>(Kind::active) == 0 && static_cast<int>(Kind::waiting) == 1 && static_cast<int>(Kind::admitted) == 2 &&
              static_cast<int>(Kind::revoked) == 3 && static_cast<int>(Kind::release_seed) == 4 && static_cast<int>(Kind::arrived) == 5 &&
              static_cast<int>(Kind::checked_in) == 6 && static_cast<int>(Kind::browsed) == 7);
constexpr size_t k_kinds = static_cast<size_t>(Kind::browsed) + 1;

void put_varint(std::string& out, uint64_t value) {
    while (value >= 0x80) {
        out += static_cast<char>((value & 0x7f) | 0x80);
        value >>= 7;
    }
    out += static_cast<char>(value);
}

void put_signed(std::string& out, int64_t value) {
    // Differences of numbers near each other: the subtraction wraps rather than overflows.
    put_varint(out, (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
}

int64_t difference(int64_t value, int64_t previous) { return static_cast<int64_t>(static_cast<uint64_t>(value) - static_cast<uint64_t>(previous)); }
int64_t sum(int64_t previous, int64_t difference) { return static_cast<int64_t>(static_cast<uint64_t>(previous) + static_cast<uint64_t>(difference)); }

class Reader {
public:
    explicit Reader(std::string_view bytes) : m_bytes(bytes) {}
    bool done() const { return m_at >= m_bytes.size(); }
    std::optional<uint8_t> byte() {
        if (done()) return std::nullopt;
        return static_cast<uint8_t>(m_bytes[m_at++]);
    }
    std::optional<uint64_t> varint() {
        uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const auto next = byte();
            if (!next) return std::nullopt;
            value |= static_cast<uint64_t>(*next & 0x7f) << shift;
            if (!(*next & 0x80)) return value;
        }
        return std::nullopt; // more than ten bytes: not a varint this codec writes
    }
    std::optional<int64_t> signed_varint() {
        const auto value = varint();
        if (!value) return std::nullopt;
        return static_cast<int64_t>((*value >> 1) ^ (~(*value & 1) + 1));
    }

private:
    std::string_view m_bytes;
    size_t m_at = 0;
};

} // namespace

bool is_count(const queue::LedgerChange& change) { return change.kind != Kind::revoked && change.kind != Kind::release_seed; }

void append_record(std::string& out, const std::vector<queue::LedgerChange>& changes) {
    size_t counts = 0;
    for (const queue::LedgerChange& change : changes) counts += is_count(change) ? 1 : 0;
    if (counts == 0) return;
    out += static_cast<char>(k_format);
    put_varint(out, counts);
    std::array<int64_t, k_kinds> previous_key{}, previous_slot{};
    for (const queue::LedgerChange& change : changes) {
        if (!is_count(change)) continue;
        const auto kind = static_cast<size_t>(change.kind);
        out += static_cast<char>(kind);
        put_signed(out, difference(change.key, previous_key[kind]));
        previous_key[kind] = change.key;
        if (change.kind == Kind::waiting) {
            put_signed(out, difference(change.minute, previous_slot[kind]));
            previous_slot[kind] = change.minute;
        }
        put_signed(out, change.delta);
    }
}

bool read_records(std::string_view bytes, std::vector<queue::LedgerChange>& out) {
    Reader reader(bytes);
    while (!reader.done()) {
        if (reader.byte() != k_format) return false;
        const auto counts = reader.varint();
        // Each change takes three bytes at least: a count beyond that is no record.
        if (!counts || *counts > bytes.size()) return false;
        std::array<int64_t, k_kinds> previous_key{}, previous_slot{};
        for (uint64_t i = 0; i < *counts; ++i) {
            const auto kind_byte = reader.byte();
            if (!kind_byte || *kind_byte >= k_kinds) return false;
            queue::LedgerChange change;
            change.kind = static_cast<Kind>(*kind_byte);
            if (!is_count(change)) return false;
            const auto key = reader.signed_varint();
            if (!key) return false;
            change.key = previous_key[*kind_byte] = sum(previous_key[*kind_byte], *key);
            if (change.kind == Kind::waiting) {
                const auto slot = reader.signed_varint();
                if (!slot) return false;
                change.minute = previous_slot[*kind_byte] = sum(previous_slot[*kind_byte], *slot);
            }
            const auto delta = reader.signed_varint();
            if (!delta) return false;
            change.delta = *delta;
            out.push_back(change);
        }
    }
    return true;
}

} // namespace wr::state
