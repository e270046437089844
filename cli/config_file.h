#pragma once
// A --config file is read strictly: every key must be an option of the section it sits in (the
// global options at the top, `wr serve`'s under [serve]), so a mistyped or misplaced key stops wr
// instead of being ignored while a default takes its place.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace wr::cli {

// The problems of one configuration file, one line each ("[serve] log-levl: unknown option
// (did you mean log-level?)"); empty when every key is known where it stands.
std::vector<std::string> config_file_problems(CLI::App& root, const std::string& path);

// The files named by --config (or --config=FILE) in the arguments.
std::vector<std::string> config_files_in(const std::vector<std::string>& arguments);

} // namespace wr::cli
