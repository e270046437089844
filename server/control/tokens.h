#pragma once
// API tokens: created once and shown once, stored only as SHA-256 hashes, checked in
// constant time.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "model/token.h"
#include "store/database.h"

namespace wr::control {

struct NewToken {
    model::Token token;
    std::string secret; // shown to the user once, never stored
};

// zone_id: empty for a token valid in every zone.
NewToken create_token(store::Connection& connection, util::TimePoint now, std::string name, model::TokenScope scope,
                      std::optional<std::string> zone_id);

// The token whose hash matches, comparing every stored hash in constant time.
std::optional<model::Token> authenticate(store::Connection& connection, std::string_view secret);

// On a data dir without tokens: creates an edit token for every zone and writes it to
// <data_dir>/admin.token (mode 0600). Returns the file's path when it made one.
std::optional<std::filesystem::path> bootstrap_admin_token(store::Database& database, util::TimePoint now,
                                                           const std::filesystem::path& data_dir);

inline constexpr std::string_view k_admin_token_file = "admin.token";

} // namespace wr::control
