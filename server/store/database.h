#pragma once
// The one SQLite connection of a process: WAL, foreign keys on, migrated on open. Every access
// goes through read() or write(), which serialise callers; write() wraps its work in one
// transaction, so a failed request (or a crash) leaves nothing half-written.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <stdexcept>

namespace wr::store {

using Connection = SQLite::Database;

// The database could not be written for a reason outside the request: the disk is full, the
// data directory is read-only, an I/O error. The transaction was rolled back; nothing changed.
class StorageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws StorageError when `error` is one of those (SQLITE_FULL, SQLITE_READONLY, SQLITE_IOERR,
// SQLITE_CANTOPEN); other errors (a constraint, a bug) are the caller's to handle.
void throw_if_storage_failure(const SQLite::Exception& error);

class Database {
public:
    // Opens (creating if needed) <data_dir>/wr.db. Does not migrate: see migrate.h.
    explicit Database(const std::filesystem::path& data_dir);

    template <typename Work> auto read(Work&& work) {
        std::lock_guard lock(m_mutex);
        return work(m_connection);
    }

    template <typename Work> auto write(Work&& work) { return in_transaction(std::forward<Work>(work), Finish::commit_config); }

    // A write that does not change the configuration (analytics, a token's last use): the
    // same transaction, but the edge is not told to reload.
    template <typename Work> auto record(Work&& work) { return in_transaction(std::forward<Work>(work), Finish::commit); }

    // Runs `work` in a transaction that is always rolled back: a dry run that checks
    // everything a real write would.
    template <typename Work> auto rehearse(Work&& work) { return in_transaction(std::forward<Work>(work), Finish::roll_back); }

    // Grows with every committed write, so readers of the configuration (the edge) can tell
    // cheaply whether to reload.
    uint64_t generation() const { return m_generation.load(std::memory_order_acquire); }

    const std::filesystem::path& path() const { return m_path; }

private:
    enum class Finish { commit_config, commit, roll_back };

    template <typename Work> auto in_transaction(Work&& work, Finish finish) {
        std::lock_guard lock(m_mutex);
        try {
            SQLite::Transaction transaction(m_connection, SQLite::TransactionBehavior::IMMEDIATE);
            if constexpr (std::is_void_v<decltype(work(m_connection))>) {
                work(m_connection);
                end(transaction, finish);
            } else {
                auto result = work(m_connection);
                end(transaction, finish);
                return result;
            }
        } catch (const SQLite::Exception& error) {
            throw_if_storage_failure(error);
            throw;
        }
    }
    void end(SQLite::Transaction& transaction, Finish finish);

    std::filesystem::path m_path;
    std::mutex m_mutex;
    Connection m_connection;
    std::atomic<uint64_t> m_generation{1};
};

} // namespace wr::store
