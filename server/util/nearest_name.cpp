// Edit distance (optimal string alignment) and the nearest-name guess built on it.
#include "util/nearest_name.h"

#include <algorithm>

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
    // A short name has few letters to spare: "lst" may be "list", but "ab" is not "zones".
    const size_t allowed = typed.size() <= 3 ? 1 : typed.size() <= 7 ? 2 : 3;
    std::optional<std::string> best;
    size_t best_distance = allowed + 1;
    for (const std::string& name : known) {
        const size_t distance = edit_distance(typed, name);
        if (distance < best_distance) {
            best = name;
            best_distance = distance;
        }
    }
    if (best) return best;
    // "stat" for "status": the beginning of exactly one known name.
    std::optional<std::string> prefixed;
    if (typed.size() >= 3)
        for (const std::string& name : known)
            if (name.starts_with(typed)) {
                if (prefixed) return std::nullopt;
                prefixed = name;
            }
    return prefixed;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known) {
    const std::optional<std::string> guess = nearest_name(typed, known);
    return guess ? " (did you mean " + *guess + "?)" : "";
}

} // namespace wr::util
