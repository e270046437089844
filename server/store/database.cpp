// Opens the SQLite database with the settings every connection needs.
#include "store/database.h"

#include <sqlite3.h>

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

void throw_if_storage_failure(const SQLite::Exception& error) {
    switch (error.getErrorCode()) {
    case SQLITE_FULL:
        throw StorageError("the disk holding the data directory is full (" + std::string(error.what()) + ")");
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
        throw StorageError("the data directory cannot be written (" + std::string(error.what()) + ")");
    case SQLITE_IOERR:
        throw StorageError("the data directory's disk failed a write (" + std::string(error.what()) + ")");
    default:
        return;
    }
}

void Database::end(SQLite::Transaction& transaction, Finish finish) {
    if (finish == Finish::roll_back) return; // the transaction's destructor rolls back
    transaction.commit();
    if (finish == Finish::commit_config) ++m_generation;
}

} // namespace wr::store
