#pragma once
// Online backups of wr.db with SQLite's backup API, and restores onto a stopped server.
//
// The backup opens the database read-only beside the running server (WAL lets a reader take a
// consistent snapshot while the server writes), so it needs no admin token and no API call,
// only read access to the data directory: run it as the user wr runs as.
#include <filesystem>

namespace wr::store {

struct BackupReport {
    int schema_version = 0;
    std::uintmax_t bytes = 0;
};

// Copies <data_dir>/wr.db into `out` (mode 0600; replaced atomically if it exists) as one
// consistent snapshot. Throws with a message naming what is wrong.
BackupReport backup_database(const std::filesystem::path& data_dir, const std::filesystem::path& out);

// Puts a backup in place of <data_dir>/wr.db. The caller holds the data directory's lock (no
// server runs). Refuses, changing nothing, a file that is not a wr database, fails SQLite's
// integrity check, or comes from a newer schema than `newest_known_version`.
BackupReport restore_database(const std::filesystem::path& data_dir, const std::filesystem::path& file, int newest_known_version);

} // namespace wr::store
