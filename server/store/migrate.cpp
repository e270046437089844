// Runs the schema migrations in order and records each in schema_migrations.
#include "store/migrate.h"

#include <algorithm>
#include <stdexcept>

#include "util/clock.h"
#include "util/embedded_files.h"

namespace wr::store {
namespace {

void ensure_migrations_table(Connection& connection) {
    connection.exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on INTEGER NOT NULL)");
}

int current_version(Connection& connection) {
    SQLite::Statement query(connection, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    query.executeStep();
    return query.getColumn(0).getInt();
}

} // namespace

std::vector<Migration> embedded_migrations() {
    std::vector<Migration> migrations;
    for (const util::EmbeddedFile& file : util::embedded_files()) {
        if (!file.path.starts_with("migrations/") || !file.path.ends_with(".sql")) continue;
        Migration migration;
        migration.name = std::string(file.path.substr(std::string_view("migrations/").size()));
        migration.version = std::stoi(migration.name.substr(0, migration.name.find('_')));
        migration.sql = std::string(file.content);
        migrations.push_back(std::move(migration));
    }
    std::sort(migrations.begin(), migrations.end(), [](const Migration& a, const Migration& b) { return a.version < b.version; });
    return migrations;
}

int schema_version(Database& database) {
    return database.read([](Connection& connection) {
        if (!connection.tableExists("schema_migrations")) return 0;
        return current_version(connection);
    });
}

MigrationReport migrate(Database& database, const std::vector<Migration>& migrations) {
    MigrationReport report;
    database.write([&](Connection& connection) { ensure_migrations_table(connection); });
    report.from_version = report.to_version = schema_version(database);
    const int newest_known = migrations.empty() ? 0 : migrations.back().version;
    if (report.from_version > newest_known)
        throw std::runtime_error("the database " + database.path().string() + " has schema version " +
                                 std::to_string(report.from_version) + ", but this wr binary knows only up to version " +
                                 std::to_string(newest_known) + "; it was written by a newer wr. Upgrade wr, or use "
                                 "another --data-dir");
    for (const Migration& migration : migrations) {
        if (migration.version <= report.to_version) continue;
        database.write([&](Connection& connection) {
            connection.exec(migration.sql);
            SQLite::Statement record(connection, "INSERT INTO schema_migrations (version, name, applied_on) VALUES (?, ?, ?)");
            record.bind(1, migration.version);
            record.bind(2, migration.name);
            record.bind(3, static_cast<int64_t>(util::SystemClock{}.now().time_since_epoch().count()));
            record.exec();
        });
        report.to_version = migration.version;
        report.applied.push_back(migration.name);
    }
    return report;
}

} // namespace wr::store
