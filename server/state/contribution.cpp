// Encodes a node run's part of a room's admission counts for the store to keep.
#include "state/contribution.h"

#include "util/parse_number.h"

namespace wr::state {
namespace {

using Kind = queue::LedgerChange::Kind;

} // namespace

std::string encode_contribution(const ChangeSet& changes) {
    const std::vector<queue::LedgerChange> all = changes.changes();
    int64_t first = INT64_MAX;
    for (const queue::LedgerChange& change : all)
        if (change.kind == Kind::active || change.kind == Kind::admitted) first = std::min(first, change.key);
    if (first == INT64_MAX) return "";
    std::string out = std::to_string(first);
    for (const queue::LedgerChange& change : all) {
        if (change.kind != Kind::active && change.kind != Kind::admitted) continue;
        out += change.kind == Kind::active ? " a" : " m";
        out += std::to_string(change.key - first);
        out += '=';
        out += std::to_string(change.delta);
    }
    return out;
}

std::optional<ChangeSet> decode_contribution(std::string_view text) {
    ChangeSet out;
    if (text.empty()) return out;
    size_t space = text.find(' ');
    const auto first = util::parse_number<int64_t>(text.substr(0, space));
    if (!first) return std::nullopt;
    while (space != std::string_view::npos) {
        const size_t start = space + 1;
        space = text.find(' ', start);
        const std::string_view entry = text.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start);
        const size_t equals = entry.find('=');
        if (entry.size() < 4 || (entry[0] != 'a' && entry[0] != 'm') || equals == std::string_view::npos) return std::nullopt;
        const auto offset = util::parse_number<int64_t>(entry.substr(1, equals - 1));
        const auto delta = util::parse_number<int64_t>(entry.substr(equals + 1));
        if (!offset || !delta || *offset < 0 || *offset > 1000000) return std::nullopt;
        out.record({entry[0] == 'a' ? Kind::active : Kind::admitted, *first + *offset, 0, *delta});
    }
    return out;
}

} // namespace wr::state
