// Edit distance (optimal string alignment) and the nearest-name guess built on it.
#include "util/nearest_name.h"

#include <algorithm>

#include "util/ascii_case.h"

namespace wr::util {

size_t edit_distance(std::string_view a, std::string_view b) {
    // Three rows are enough: a swap looks two rows back.
    std::vector<size_t> before_previous(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                current[j] = std::min(current[j], before_previous[j - 2] + 1);
        }
        std::swap(before_previous, previous);
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::optional<std::string> nearest_name(std::string_view typed, const std::vector<std::string>& known) {
    if (typed.empty() || std::find(known.begin(), known.end(), typed) != known.end()) return std::nullopt;
    // Case is no edit: "ROOMS" is "rooms" with the caps lock on.
    const std::string lower = lowercase(typed);
    // A short name has few letters to spare: "lst" may be "list", but "ab" is not "zones".
    const size_t allowed = typed.size() <= 3 ? 1 : typed.size() <= 7 ? 2 : 3;
    std::optional<std::string> best;
    size_t best_distance = allowed + 1;
    for (const std::string& name : known) {
        const size_t distance = edit_distance(lower, lowercase(name));
        if (distance < best_distance) {
            best = name;
            best_distance = distance;
        }
    }
    if (best) return best;
    if (typed.size() < 3) return std::nullopt;
    // "stat" for "status": the beginning of exactly one known name; else "rom" for "rooms":
    // letters left out of exactly one known name that starts the same.
    const auto unique = [&](auto&& fits) -> std::optional<std::string> {
        std::optional<std::string> found;
        for (const std::string& name : known)
            if (fits(lowercase(name))) {
                if (found) return std::nullopt;
                found = name;
            }
        return found;
    };
    if (auto prefixed = unique([&](const std::string& name) { return name.starts_with(lower); })) return prefixed;
    return unique([&](const std::string& name) {
        if (name.empty() || name[0] != lower[0]) return false;
        size_t at = 0;
        for (const char c : name)
            if (at < lower.size() && c == lower[at]) ++at;
        return at == lower.size();
    });
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known) {
    const std::optional<std::string> guess = nearest_name(typed, known);
    return guess ? " (did you mean " + *guess + "?)" : "";
}

} // namespace wr::util
