#pragma once
// The one SQLite connection of a process: WAL, foreign keys on, migrated on open. Every access
// goes through read() or write(), which serialise callers; write() wraps its work in one
// transaction, so a failed request (or a crash) leaves nothing half-written.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <atomic>
#include <filesystem>
#include <mutex>

namespace wr::store {

using Connection = SQLite::Database;

class Database {
public:
    // Opens (creating if needed) <data_dir>/wr.db. Does not migrate: see migrate.h.
    explicit Database(const std::filesystem::path& data_dir);

    template <typename Work> auto read(Work&& work) {
        std::lock_guard lock(m_mutex);
        return work(m_connection);
    }

    template <typename Work> auto write(Work&& work) {
        std::lock_guard lock(m_mutex);
        SQLite::Transaction transaction(m_connection, SQLite::TransactionBehavior::IMMEDIATE);
        if constexpr (std::is_void_v<decltype(work(m_connection))>) {
            work(m_connection);
            transaction.commit();
            ++m_generation;
        } else {
            auto result = work(m_connection);
            transaction.commit();
            ++m_generation;
            return result;
        }
    }

    // A write that does not change the configuration (analytics, a token's last use): the
    // same transaction, but the edge is not told to reload.
    template <typename Work> auto record(Work&& work) {
        std::lock_guard lock(m_mutex);
        SQLite::Transaction transaction(m_connection, SQLite::TransactionBehavior::IMMEDIATE);
        if constexpr (std::is_void_v<decltype(work(m_connection))>) {
            work(m_connection);
            transaction.commit();
        } else {
            auto result = work(m_connection);
            transaction.commit();
            return result;
        }
    }

    // Runs `work` in a transaction that is always rolled back: a dry run that checks
    // everything a real write would.
    template <typename Work> auto rehearse(Work&& work) {
        std::lock_guard lock(m_mutex);
        SQLite::Transaction transaction(m_connection, SQLite::TransactionBehavior::IMMEDIATE);
        return work(m_connection);
    }

    // Grows with every committed write, so readers of the configuration (the edge) can tell
    // cheaply whether to reload.
    uint64_t generation() const { return m_generation.load(std::memory_order_acquire); }

    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
    std::mutex m_mutex;
    Connection m_connection;
    std::atomic<uint64_t> m_generation{1};
};

} // namespace wr::store
