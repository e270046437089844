// Opens the SQLite database with the settings every connection needs.
#include "store/database.h"

#include "util/files.h"

namespace wr::store {
namespace {

std::filesystem::path database_path(const std::filesystem::path& data_dir) {
    // The database holds token hashes and visitor data: this user's only (its -wal and -shm
    // files take the database file's mode).
    util::create_private_directory(data_dir);
    util::make_private_file(data_dir / "wr.db");
    return data_dir / "wr.db";
}

} // namespace

Database::Database(const std::filesystem::path& data_dir)
    : m_path(database_path(data_dir)),
      m_connection(m_path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_FULLMUTEX) {
    m_connection.exec("PRAGMA journal_mode = WAL");
    // FULL: a committed configuration change survives power loss, not only a crash.
    m_connection.exec("PRAGMA synchronous = FULL");
    m_connection.exec("PRAGMA foreign_keys = ON");
    m_connection.setBusyTimeout(5000);
}

} // namespace wr::store
