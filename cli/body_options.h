#pragma once
// Command-line options that become fields of a JSON request body. Only the options a user gave
// are sent, so `update` commands are partial (PATCH) and `create` leaves defaults to the server.
#include <CLI/CLI.hpp>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "context.h"

namespace wr::cli {

class BodyOptions {
public:
    void add_string(CLI::App* command, const std::string& flags, std::string key, const std::string& help);
    CLI::Option* add_integer(CLI::App* command, const std::string& flags, std::string key, const std::string& help);
    // --flag sets true, --no-flag sets false.
    void add_boolean(CLI::App* command, const std::string& flag, std::string key, const std::string& help);
    void add_choice(CLI::App* command, const std::string& flags, std::string key, std::vector<std::string> choices,
                    const std::string& help);
    // The field's value is the content of the named file.
    void add_file(CLI::App* command, const std::string& flags, std::string key, const std::string& help);
    // An ISO 8601 time, or a time relative to now: "+30m", "+2h", "+1d".
    void add_time(CLI::App* command, const std::string& flags, std::string key, const std::string& help);

    // Throws CliError when a file cannot be read or a time cannot be understood.
    nlohmann::json body() const;
    // Each field these options set, with the flag that sets it: "host" → "--host".
    std::map<std::string, std::string> flags() const;

private:
    enum class Kind { string, integer, boolean, file, time };
    struct Entry {
        Kind kind;
        std::string key;
        CLI::Option* option = nullptr;
        std::string text;
        int64_t integer = 0;
        bool boolean = false;
    };
    Entry& add(Kind kind, std::string key);

    std::deque<Entry> m_entries; // a deque: CLI11 keeps pointers into the entries
};

// Runs an API request; an error about a field that one of `flags` sets names the flag the user
// types instead ("--host is required", not "host: is required").
template <typename Request> nlohmann::json naming_flags(const std::map<std::string, std::string>& flags, Request&& request) {
    try {
        return request();
    } catch (const ApiError& error) {
        throw error.naming_flags(flags);
    }
}

// "+30m" → now + 30 minutes, as ISO 8601; anything else is returned unchanged.
std::string resolve_time(const std::string& text);

} // namespace wr::cli
