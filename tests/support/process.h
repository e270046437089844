#pragma once
// Runs the real `wr` binary, as users do, and captures what it prints.
#include <map>
#include <string>
#include <vector>

namespace wr::test {

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Runs WR_BINARY with these arguments and extra environment; stdin from `input`.
ProcessResult run_wr(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& environment = {},
                     const std::string& input = "");

} // namespace wr::test
