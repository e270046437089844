#pragma once
// Brings a database to the schema this binary expects, with the numbered SQL files of
// migrations/ (embedded at build time), each in its own transaction.
#include <string>
#include <vector>

#include "store/database.h"

namespace wr::store {

struct Migration {
    int version = 0;     // from the file name: 0001_init.sql → 1
    std::string name;    // "0001_init.sql"
    std::string sql;
};

// The embedded migrations, in order.
std::vector<Migration> embedded_migrations();

struct MigrationReport {
    int from_version = 0;
    int to_version = 0;
    std::vector<std::string> applied; // file names
};

// Applies what is missing. Throws std::runtime_error, changing nothing, when the database was
// written by a newer wr (its version is above every migration known here).
MigrationReport migrate(Database& database, const std::vector<Migration>& migrations);
inline MigrationReport migrate(Database& database) { return migrate(database, embedded_migrations()); }

int schema_version(Database& database);

} // namespace wr::store
