// Schema migrations: a fresh database reaches the newest version, a second run does nothing,
// a database from a newer wr is refused untouched, and each migration is all or nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "store/migrate.h"
#include "store/rooms_store.h"
#include "store/zones_store.h"
#include "support/temp_dir.h"

using wr::store::Connection;
using wr::store::Database;
using wr::store::Migration;
using wr::test::TempDir;

namespace {

// Every schema object and every recorded migration, to compare a database before and after.
std::string snapshot(Database& database) {
    return database.read([](Connection& connection) {
        std::string text;
        SQLite::Statement objects(connection, "SELECT type, name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name");
        while (objects.executeStep())
            text += objects.getColumn(0).getString() + " " + objects.getColumn(1).getString() + ": " +
                    objects.getColumn(2).getString() + "\n";
        if (connection.tableExists("schema_migrations")) {
            SQLite::Statement rows(connection, "SELECT version, name, applied_on FROM schema_migrations ORDER BY version");
            while (rows.executeStep())
                text += "migration " + rows.getColumn(0).getString() + " " + rows.getColumn(1).getString() + " " +
                        rows.getColumn(2).getString() + "\n";
        }
        return text;
    });
}

bool has_table(Database& database, const std::string& name) {
    return database.read([&](Connection& connection) { return connection.tableExists(name); });
}

std::vector<std::string> column_values(Database& database, const std::string& sql) {
    return database.read([&](Connection& connection) {
        std::vector<std::string> values;
        SQLite::Statement query(connection, sql);
        while (query.executeStep()) values.push_back(query.getColumn(0).getString());
        return values;
    });
}

} // namespace

TEST_CASE("store::embedded_migrations are numbered from their file names, in order") {
    const std::vector<Migration> migrations = wr::store::embedded_migrations();
    REQUIRE_FALSE(migrations.empty());
    CHECK(migrations.front().version == 1);
    CHECK(migrations.front().name == "0001_init.sql");
    CHECK(migrations.front().sql.find("CREATE TABLE zones") != std::string::npos);
    for (size_t i = 1; i < migrations.size(); ++i) {
        CAPTURE(migrations[i].name);
        CHECK(migrations[i].version > migrations[i - 1].version);
    }
}

TEST_CASE("store::migrate brings a fresh database to the newest version and records it") {
    TempDir dir;
    Database database(dir.path());
    const std::vector<Migration> embedded = wr::store::embedded_migrations();
    const int newest = embedded.back().version;
    CHECK(wr::store::schema_version(database) == 0);

    const wr::store::MigrationReport report = wr::store::migrate(database);
    CHECK(report.from_version == 0);
    CHECK(report.to_version == newest);
    std::vector<std::string> names;
    for (const Migration& migration : embedded) names.push_back(migration.name);
    CHECK(report.applied == names);
    CHECK(wr::store::schema_version(database) == newest);
    CHECK(column_values(database, "SELECT name FROM schema_migrations ORDER BY version") == names);
    CHECK(column_values(database, "SELECT COUNT(*) FROM schema_migrations WHERE applied_on > 0") ==
          std::vector<std::string>{std::to_string(names.size())});
    for (const char* table : {"zones", "zone_settings", "waiting_rooms", "room_routes", "events", "rules", "api_tokens", "previews"}) {
        CAPTURE(table);
        CHECK(has_table(database, table));
    }
}

TEST_CASE("store::migrate applies nothing the second time, nor after reopening") {
    TempDir dir;
    const int newest = wr::store::embedded_migrations().back().version;
    std::string before;
    {
        Database database(dir.path());
        wr::store::migrate(database);
        before = snapshot(database);
        const wr::store::MigrationReport again = wr::store::migrate(database);
        CHECK(again.from_version == newest);
        CHECK(again.to_version == newest);
        CHECK(again.applied.empty());
        CHECK(snapshot(database) == before);
    }
    Database reopened(dir.path());
    const wr::store::MigrationReport report = wr::store::migrate(reopened);
    CHECK(report.from_version == newest);
    CHECK(report.applied.empty());
    CHECK(snapshot(reopened) == before);
}

TEST_CASE("store::migrate refuses a database written by a newer wr and leaves it unchanged") {
    TempDir dir;
    Database database(dir.path());
    wr::store::migrate(database);
    const int newest = wr::store::embedded_migrations().back().version;
    const int future = newest + 98;
    database.write([&](Connection& connection) {
        SQLite::Statement insert(connection, "INSERT INTO schema_migrations (version, name, applied_on) VALUES (?, ?, 1)");
        insert.bind(1, future);
        insert.bind(2, "0099_future.sql");
        insert.exec();
    });
    const std::string before = snapshot(database);

    const std::string expected = "the database " + (dir.path() / "wr.db").string() + " has schema version " +
                                 std::to_string(future) + ", but this wr binary knows only up to version " +
                                 std::to_string(newest) + "; it was written by a newer wr. Upgrade wr, or use another --data-dir";
    CHECK_THROWS_WITH_AS(wr::store::migrate(database), expected.c_str(), std::runtime_error);
    CHECK(snapshot(database) == before);
    CHECK(wr::store::schema_version(database) == future);
}

TEST_CASE("store::migrate refuses a newer schema before creating any of its own tables") {
    TempDir dir;
    Database database(dir.path());
    database.write([](Connection& connection) {
        connection.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on INTEGER NOT NULL)");
        connection.exec("INSERT INTO schema_migrations VALUES (7, '0007_later.sql', 1)");
    });
    const std::string before = snapshot(database);
    const std::vector<Migration> migrations = {{1, "0001_a.sql", "CREATE TABLE a (x INTEGER);"}};
    const std::string expected = "the database " + (dir.path() / "wr.db").string() +
                                 " has schema version 7, but this wr binary knows only up to version 1; it was written by "
                                 "a newer wr. Upgrade wr, or use another --data-dir";
    CHECK_THROWS_WITH_AS(wr::store::migrate(database, migrations), expected.c_str(), std::runtime_error);
    CHECK_FALSE(has_table(database, "a"));
    CHECK(snapshot(database) == before);
}

TEST_CASE("store::migrate applies a custom list in order, each migration in its own transaction") {
    TempDir dir;
    Database database(dir.path());
    const Migration first{1, "0001_a.sql", "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);"};
    const Migration second{2, "0002_b.sql", "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (2);"};
    const wr::store::MigrationReport report = wr::store::migrate(database, {first, second});
    CHECK(report.from_version == 0);
    CHECK(report.to_version == 2);
    CHECK(report.applied == std::vector<std::string>{"0001_a.sql", "0002_b.sql"});
    CHECK(column_values(database, "SELECT x FROM a ORDER BY rowid") == std::vector<std::string>{"1", "2"});
    CHECK(has_table(database, "b"));

    // The third fails halfway: its table and its row are rolled back, version 2 stays recorded,
    // and the fourth is not attempted.
    const Migration failing{3, "0003_c.sql",
                            "CREATE TABLE c (z INTEGER); INSERT INTO a VALUES (3); INSERT INTO missing VALUES (1);"};
    const Migration after{4, "0004_d.sql", "CREATE TABLE d (w INTEGER);"};
    CHECK_THROWS_WITH_AS(wr::store::migrate(database, {first, second, failing, after}), "no such table: missing",
                         SQLite::Exception);
    CHECK(wr::store::schema_version(database) == 2);
    CHECK(column_values(database, "SELECT name FROM schema_migrations ORDER BY version") ==
          std::vector<std::string>{"0001_a.sql", "0002_b.sql"});
    CHECK_FALSE(has_table(database, "c"));
    CHECK_FALSE(has_table(database, "d"));
    CHECK(column_values(database, "SELECT x FROM a ORDER BY rowid") == std::vector<std::string>{"1", "2"});

    // Fixed, it applies from where the database stands.
    const Migration fixed{3, "0003_c.sql", "CREATE TABLE c (z INTEGER); INSERT INTO a VALUES (3);"};
    const wr::store::MigrationReport resumed = wr::store::migrate(database, {first, second, fixed, after});
    CHECK(resumed.from_version == 2);
    CHECK(resumed.to_version == 4);
    CHECK(resumed.applied == std::vector<std::string>{"0003_c.sql", "0004_d.sql"});
    CHECK(column_values(database, "SELECT x FROM a ORDER BY rowid") == std::vector<std::string>{"1", "2", "3"});
}

TEST_CASE("store::migrate on a fresh database keeps the migrations before a failing one") {
    TempDir dir;
    Database database(dir.path());
    const std::vector<Migration> migrations = {{1, "0001_a.sql", "CREATE TABLE a (x INTEGER);"},
                                               {2, "0002_bad.sql", "CREATE TABLE b (y INTEGER); THIS IS NOT SQL;"}};
    CHECK_THROWS_AS(wr::store::migrate(database, migrations), SQLite::Exception);
    CHECK(wr::store::schema_version(database) == 1);
    CHECK(has_table(database, "a"));
    CHECK_FALSE(has_table(database, "b"));
}

TEST_CASE("store::migrate 0005 keeps the tokens of a version 4 database and lets edge tokens in, never bound to a zone") {
    TempDir dir;
    Database database(dir.path());
    std::vector<Migration> migrations = wr::store::embedded_migrations();
    const auto five = std::find_if(migrations.begin(), migrations.end(), [](const Migration& m) { return m.version == 5; });
    REQUIRE(five != migrations.end());
    const std::vector<Migration> up_to_four(migrations.begin(), five);
    wr::store::migrate(database, up_to_four);
    database.write([](Connection& connection) {
        connection.exec("INSERT INTO zones (id, name, origin, created_on, modified_on) VALUES ('z', 'example.com', 'http://o', 1, 1)");
        connection.exec("INSERT INTO api_tokens (id, name, scope, zone_id, token_hash, created_on, last_used_on) "
                        "VALUES ('t1', 'admin', 'edit', NULL, 'h1', 1, 5), ('t2', 'ci', 'read', 'z', 'h2', 2, NULL)");
    });
    CHECK_THROWS(database.write([](Connection& connection) {
        connection.exec("INSERT INTO api_tokens (id, name, scope, token_hash, created_on) VALUES ('t3', 'e', 'edge', 'h3', 3)");
    }));

    const wr::store::MigrationReport report = wr::store::migrate(database, migrations);
    CHECK(report.applied.front() == "0005_edge_nodes.sql");
    CHECK(column_values(database, "SELECT id || ' ' || name || ' ' || scope || ' ' || COALESCE(zone_id, '-') || ' ' || token_hash || "
                                  "' ' || created_on || ' ' || COALESCE(last_used_on, '-') FROM api_tokens ORDER BY id") ==
          std::vector<std::string>{"t1 admin edit - h1 1 5", "t2 ci read z h2 2 -"});
    CHECK_NOTHROW(database.write([](Connection& connection) {
        connection.exec("INSERT INTO api_tokens (id, name, scope, token_hash, created_on) VALUES ('t3', 'e', 'edge', 'h3', 3)");
    }));
    CHECK_THROWS(database.write([](Connection& connection) {
        connection.exec("INSERT INTO api_tokens (id, name, scope, zone_id, token_hash, created_on) VALUES ('t4', 'e', 'edge', 'z', 'h4', 4)");
    }));
    // Deleting the zone still revokes the tokens bound to it (the foreign key survived the rebuild).
    database.write([](Connection& connection) { connection.exec("DELETE FROM zones WHERE id = 'z'"); });
    CHECK(column_values(database, "SELECT id FROM api_tokens ORDER BY id") == std::vector<std::string>{"t1", "t3"});
    CHECK(has_table(database, "analytics_streams"));
}

TEST_CASE("store::migrate origin_protection gives existing zones and rooms the defaults, and keeps out-of-range values out") {
    TempDir dir;
    Database database(dir.path());
    std::vector<Migration> migrations = wr::store::embedded_migrations();
    // Found by name: migrations written in parallel may be renumbered when merged.
    const auto protection = std::find_if(migrations.begin(), migrations.end(),
                                         [](const Migration& m) { return m.name.ends_with("_origin_protection.sql"); });
    REQUIRE(protection != migrations.end());
    wr::store::migrate(database, std::vector<Migration>(migrations.begin(), protection));
    database.write([](Connection& connection) {
        connection.exec("INSERT INTO zones (id, name, origin, created_on, modified_on) VALUES ('z', 'example.com', 'http://o', 1, 1)");
        connection.exec("INSERT INTO waiting_rooms (id, zone_id, name, description, total_active_users, new_users_per_minute, "
                        "session_duration, disable_session_renewal, queue_all, queueing_method, queueing_status_code, suspended, "
                        "json_response_enabled, cookie_suffix, cookie_samesite, cookie_secure, custom_page_html, "
                        "default_template_language, revoke_origin_command, turnstile_mode, turnstile_action, created_on, modified_on) "
                        "VALUES ('r', 'z', 'shop', '', 1000, 300, 5, 0, 0, 'fifo', 200, 0, 0, '', 'auto', 'auto', '', 'en-US', 0, "
                        "'invisible', 'log', 1, 1)");
        connection.exec("INSERT INTO room_routes (room_id, position, host, host_key, path) "
                        "VALUES ('r', 0, 'shop.example.com', 'shop.example.com', '/')");
    });

    wr::store::migrate(database, migrations);
    const auto zone = database.read([](Connection& connection) { return wr::store::find_zone(connection, "z"); });
    REQUIRE(zone);
    CHECK(zone->settings.max_origin_connections == 0);
    CHECK(zone->settings.origin_queue_timeout_seconds == 10);
    const auto room = database.read([](Connection& connection) { return wr::store::find_room(connection, "r"); });
    REQUIRE(room);
    CHECK(room->settings.origin_guard == wr::model::OriginGuardSettings{});

    // The schema holds the API's ranges too, for whatever writes the database by hand.
    for (const char* change : {"UPDATE zones SET max_origin_connections = -1", "UPDATE zones SET max_origin_connections = 1000001",
                               "UPDATE zones SET origin_queue_timeout_seconds = 0", "UPDATE zones SET origin_queue_timeout_seconds = 121",
                               "UPDATE waiting_rooms SET origin_guard_enabled = 2", "UPDATE waiting_rooms SET origin_guard_target_ttfb_ms = 49",
                               "UPDATE waiting_rooms SET origin_guard_target_ttfb_ms = 60001",
                               "UPDATE waiting_rooms SET origin_guard_max_error_rate = 1.01",
                               "UPDATE waiting_rooms SET origin_guard_max_error_rate = -0.01",
                               "UPDATE waiting_rooms SET origin_guard_min_new_users_per_minute = -1",
                               "UPDATE waiting_rooms SET origin_guard_min_new_users_per_minute = 301"}) {
        CAPTURE(change);
        CHECK_THROWS(database.write([&](Connection& connection) { connection.exec(change); }));
    }
    CHECK_NOTHROW(database.write([](Connection& connection) {
        connection.exec("UPDATE zones SET max_origin_connections = 1000000, origin_queue_timeout_seconds = 120");
        connection.exec("UPDATE waiting_rooms SET origin_guard_enabled = 1, origin_guard_target_ttfb_ms = 60000, "
                        "origin_guard_max_error_rate = 1, origin_guard_min_new_users_per_minute = 300");
    }));
}
