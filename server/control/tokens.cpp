// Creates and checks API tokens. A token is "wr_" followed by 48 hex characters (192 random
// bits); the store keeps its SHA-256 only.
#include "control/tokens.h"

#include "control/error.h"
#include "store/tokens_store.h"
#include "util/files.h"
#include "util/secure.h"
#include "util/utf8.h"

namespace wr::control {

NewToken create_token(store::Connection& connection, util::TimePoint now, std::string name, model::TokenScope scope,
                      std::optional<std::string> zone_id) {
    if (name.empty()) throw Error::invalid("name", "is required");
    if (util::utf8_length(name) > 255) throw Error::invalid("name", "must be at most 255 characters");
    if (scope == model::TokenScope::edge && zone_id)
        throw Error::invalid("zone_id", "an edge token serves every zone and cannot be bound to one");
    NewToken created;
    created.secret = "wr_" + util::hex_encode(util::random_bytes(24));
    created.token = model::Token{util::new_id(), std::move(name), scope, std::move(zone_id),
                                 util::sha256_hex(created.secret), now, std::nullopt};
    store::insert_token(connection, created.token);
    return created;
}

std::optional<model::Token> authenticate(store::Connection& connection, std::string_view secret) {
    const std::string hash = util::sha256_hex(secret);
    std::optional<model::Token> match;
    // Look at every token, so the time taken says nothing about which one (if any) matched.
    for (model::Token& token : store::list_tokens(connection))
        if (util::constant_time_equal(token.hash, hash)) match = std::move(token);
    return match;
}

std::optional<std::filesystem::path> bootstrap_admin_token(store::Database& database, util::TimePoint now,
                                                           const std::filesystem::path& data_dir) {
    return database.write([&](store::Connection& connection) -> std::optional<std::filesystem::path> {
        if (!store::list_tokens(connection).empty()) return std::nullopt;
        const NewToken admin = create_token(connection, now, "admin", model::TokenScope::edit, std::nullopt);
        const std::filesystem::path path = data_dir / k_admin_token_file;
        // Written inside the transaction: if the file cannot be written, no token exists either.
        util::write_secret_file(path, admin.secret + "\n");
        return path;
    });
}

} // namespace wr::control
