#pragma once
// Guesses what a mistyped name was meant to be, for messages such as "unknown field (did you mean
// session_duration?)": the known name fewest edits away (insertions, deletions, substitutions and
// swaps of neighbours, whatever the case), within a distance that grows with the name's length,
// or the one known name the typed one begins, or else the one it abbreviates ("rom": "rooms").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wr::util {

// Edits between two strings; a swap of two neighbouring characters counts as one.
size_t edit_distance(std::string_view a, std::string_view b);

// The nearest of `known` to `typed`, or nothing when none is close enough (or `typed` is known).
// Ties go to the earlier name in `known`.
std::optional<std::string> nearest_name(std::string_view typed, const std::vector<std::string>& known);

// " (did you mean NAME?)" for the nearest name, or "" when there is none.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known);

} // namespace wr::util
