// API tokens: shown once, stored only as SHA-256, checked against every stored hash; the first
// start writes an admin token file readable by its owner only.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "control/error.h"
#include "control/tokens.h"
#include "store/migrate.h"
#include "store/tokens_store.h"
#include "store/zones_store.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "util/files.h"
#include "util/secure.h"

using namespace std::chrono_literals;
using wr::store::Connection;
using wr::test::k_test_start;

namespace {

struct TokenStore {
    wr::test::TempDir dir;
    wr::store::Database database{dir.path()};
    TokenStore() { wr::store::migrate(database); }

    wr::control::NewToken create(const std::string& name, wr::model::TokenScope scope,
                                 std::optional<std::string> zone_id = std::nullopt) {
        return database.write(
            [&](Connection& c) { return wr::control::create_token(c, k_test_start, name, scope, zone_id); });
    }
    std::optional<wr::model::Token> authenticate(const std::string& secret) {
        return database.read([&](Connection& c) { return wr::control::authenticate(c, secret); });
    }
    std::vector<wr::model::Token> tokens() {
        return database.read([](Connection& c) { return wr::store::list_tokens(c); });
    }
    // The database file and its write-ahead log, where committed rows live until a checkpoint.
    std::string files() {
        std::string bytes;
        for (const char* name : {"wr.db", "wr.db-wal"}) bytes += wr::util::read_text_file(dir.path() / name).value_or("");
        return bytes;
    }
};

} // namespace

TEST_CASE("control::create_token returns the secret once and stores only its SHA-256") {
    TokenStore store;
    const wr::control::NewToken created = store.create("ci", wr::model::TokenScope::edit);
    CHECK(created.secret.starts_with("wr_"));
    CHECK(created.secret.size() == 51);
    CHECK(created.secret.find_first_not_of("0123456789abcdef", 3) == std::string::npos);
    CHECK(wr::util::is_id(created.token.id));
    CHECK(created.token.hash == wr::util::sha256_hex(created.secret));
    CHECK(created.token.created_on == k_test_start);

    const std::vector<wr::model::Token> tokens = store.tokens();
    REQUIRE(tokens.size() == 1);
    CHECK(tokens[0].id == created.token.id);
    CHECK(tokens[0].hash == created.token.hash);
    CHECK(tokens[0].hash != created.secret);

    const std::string bytes = store.files();
    CHECK(bytes.find(created.token.hash) != std::string::npos); // the files hold the token's row...
    CHECK(bytes.find(created.secret) == std::string::npos);     // ...but never the secret
    CHECK(bytes.find(created.secret.substr(3)) == std::string::npos);

    CHECK(store.create("ci", wr::model::TokenScope::edit).secret != created.secret);
}

TEST_CASE("control::create_token keeps the scope and the zone") {
    TokenStore store;
    const std::string zone_id = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    store.database.write([&](Connection& c) {
        wr::store::insert_zone(c, wr::model::Zone{zone_id, {"example.com", "http://127.0.0.1:3000"}, k_test_start, k_test_start});
    });
    const wr::control::NewToken reader = store.create("reader", wr::model::TokenScope::read, zone_id);
    const wr::control::NewToken editor = store.create("editor", wr::model::TokenScope::edit);

    const auto read_back = store.authenticate(reader.secret);
    REQUIRE(read_back);
    CHECK(read_back->id == reader.token.id);
    CHECK(read_back->name == "reader");
    CHECK(read_back->scope == wr::model::TokenScope::read);
    CHECK(read_back->zone_id == zone_id);

    const auto edit_back = store.authenticate(editor.secret);
    REQUIRE(edit_back);
    CHECK(edit_back->id == editor.token.id);
    CHECK(edit_back->scope == wr::model::TokenScope::edit);
    CHECK_FALSE(edit_back->zone_id);
}

TEST_CASE("control::create_token wants a name of at most 255 characters") {
    TokenStore store;
    CHECK_THROWS_WITH_AS(store.create("", wr::model::TokenScope::read), "name: is required", wr::control::Error);
    CHECK_THROWS_WITH_AS(store.create(std::string(256, 'n'), wr::model::TokenScope::read),
                         "name: must be at most 255 characters", wr::control::Error);
    CHECK(store.tokens().empty());
    CHECK_NOTHROW(store.create(std::string(255, 'n'), wr::model::TokenScope::read));
    // Characters, not bytes: 255 two-byte characters pass, 256 do not.
    std::string accents;
    for (int i = 0; i < 255; ++i) accents += "é";
    CHECK_NOTHROW(store.create(accents, wr::model::TokenScope::read));
    CHECK_THROWS_WITH_AS(store.create(accents + "é", wr::model::TokenScope::read), "name: must be at most 255 characters",
                         wr::control::Error);
}

TEST_CASE("control::authenticate accepts the exact secret and nothing else") {
    TokenStore store;
    const wr::control::NewToken created = store.create("ci", wr::model::TokenScope::edit);
    store.create("other", wr::model::TokenScope::read);
    const auto found = store.authenticate(created.secret);
    REQUIRE(found);
    CHECK(found->id == created.token.id);

    const std::string secret = created.secret;
    std::string changed = secret;
    changed.back() = changed.back() == 'a' ? 'b' : 'a';
    std::string upper = secret;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& wrong : {std::string(), std::string("wr_"), secret.substr(0, secret.size() - 1), secret + "0",
                                     " " + secret, changed, upper, created.token.hash, created.token.id}) {
        CAPTURE(wrong);
        CHECK_FALSE(store.authenticate(wrong));
    }
}

TEST_CASE("control::authenticate refuses a deleted token") {
    TokenStore store;
    const wr::control::NewToken created = store.create("ci", wr::model::TokenScope::edit);
    REQUIRE(store.authenticate(created.secret));
    store.database.write([&](Connection& c) { wr::store::delete_token(c, created.token.id); });
    CHECK_FALSE(store.authenticate(created.secret));
}

TEST_CASE("control::bootstrap_admin_token writes admin.token, mode 0600, only when there are no tokens") {
    TokenStore store;
    const auto path = wr::control::bootstrap_admin_token(store.database, k_test_start, store.dir.path());
    REQUIRE(path);
    CHECK(*path == store.dir.path() / "admin.token");
    CHECK(std::filesystem::status(*path).permissions() ==
          (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
    const std::string content = wr::util::read_text_file(*path).value_or("");
    REQUIRE(content.size() == 52);
    CHECK(content.ends_with("\n"));
    const std::string secret = content.substr(0, 51);

    const auto admin = store.authenticate(secret);
    REQUIRE(admin);
    CHECK(admin->name == "admin");
    CHECK(admin->scope == wr::model::TokenScope::edit);
    CHECK_FALSE(admin->zone_id);
    CHECK(admin->created_on == k_test_start);
    CHECK(store.files().find(secret) == std::string::npos);

    // Not again: the file and the single token stay as they are.
    CHECK_FALSE(wr::control::bootstrap_admin_token(store.database, k_test_start + 1h, store.dir.path()));
    CHECK(wr::util::read_text_file(*path) == content);
    CHECK(store.tokens().size() == 1);
}

TEST_CASE("control::bootstrap_admin_token does nothing when a token already exists") {
    TokenStore store;
    store.create("ci", wr::model::TokenScope::read);
    CHECK_FALSE(wr::control::bootstrap_admin_token(store.database, k_test_start, store.dir.path()));
    CHECK_FALSE(std::filesystem::exists(store.dir.path() / "admin.token"));
    CHECK(store.tokens().size() == 1);
}

TEST_CASE("control::bootstrap_admin_token creates no token when the file cannot be written") {
    TokenStore store;
    const std::filesystem::path missing = store.dir.path() / "no" / "such" / "dir";
    CHECK_THROWS(wr::control::bootstrap_admin_token(store.database, k_test_start, missing));
    CHECK(store.tokens().empty());
}
