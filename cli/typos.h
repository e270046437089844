#pragma once
// What a mistyped command line probably meant: `wr roomz lst` → `wr rooms list`,
// `--total-active-user` → `--total-active-users`. Read from the command tree itself, so every
// command and flag is known without a list to keep in step.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wr::cli {

// A message naming the first word of `arguments` (argv without the program name) that is not a
// command or flag where it stands, with the nearest one that is ("`roomz` is not a wr command
// (did you mean `wr rooms list`?)"); nothing when every word is known.
std::optional<std::string> diagnose_unknown_words(CLI::App& root, const std::vector<std::string>& arguments);

} // namespace wr::cli
