#pragma once
// What every command shares: where the admin API is, how to authenticate, how to print.
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "api_client.h"

namespace wr::cli {

// A failure to report as "wr: error: <message>" with exit status 1.
class CliError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An error the admin API answered: one message per problem, most naming a field
// ("host: is required").
class ApiError : public CliError {
public:
    explicit ApiError(std::vector<std::string> messages);

    const std::vector<std::string>& messages() const { return m_messages; }
    // The same error, each "field: …" about a field in `flags` (field → flag) reworded to name the
    // flag the user types ("--host is required").
    ApiError naming_flags(const std::map<std::string, std::string>& flags) const;

private:
    std::vector<std::string> m_messages;
};

struct Context {
    std::string api_url = "http://127.0.0.1:9090";
    std::string token;
    std::string api_ca_file; // PEM CA to trust for an https:// API
    std::filesystem::path data_dir = "wr-data";
    std::string output = "table"; // or "json"

    bool json_output() const { return output == "json"; }

    // A client for the admin API; the token comes from --token, WR_API_TOKEN, or, for an API on
    // this machine, <data-dir>/admin.token.
    ApiClient client() const;
};

} // namespace wr::cli
