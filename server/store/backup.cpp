// Copies whole databases page by page with sqlite3_backup_*.
#include "store/backup.h"

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <stdexcept>
#include <sys/stat.h>

#include "store/database.h"
#include "util/files.h"

namespace wr::store {
namespace {

// The schema version of a database file, or throws if it is not one of wr's.
int version_of(SQLite::Database& connection, const std::filesystem::path& file) {
    SQLite::Statement check(connection, "PRAGMA quick_check");
    if (!check.executeStep() || check.getColumn(0).getString() != "ok")
        throw std::runtime_error(file.string() + " fails SQLite's integrity check");
    if (!connection.tableExists("schema_migrations")) throw std::runtime_error(file.string() + " is not a wr database (no schema_migrations)");
    SQLite::Statement query(connection, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    query.executeStep();
    return query.getColumn(0).getInt();
}

void copy_all(SQLite::Database& from, SQLite::Database& to) {
    SQLite::Backup backup(to, from);
    backup.executeStep(-1); // every page in one step: one read transaction, one snapshot
}

std::uintmax_t size_of(const std::filesystem::path& file) {
    std::error_code ignored;
    return std::filesystem::file_size(file, ignored);
}

} // namespace

BackupReport backup_database(const std::filesystem::path& data_dir, const std::filesystem::path& out) {
    const std::filesystem::path source_path = data_dir / "wr.db";
    if (!std::filesystem::exists(source_path)) throw std::runtime_error("no database at " + source_path.string());
    SQLite::Database source(source_path.string(), SQLite::OPEN_READONLY);
    source.setBusyTimeout(5000);
    BackupReport report;
    report.schema_version = version_of(source, source_path);
    // Written beside the target and renamed, so a failed backup never leaves a half file there.
    const std::filesystem::path temporary = out.string() + ".partial";
    std::filesystem::remove(temporary);
    util::make_private_file(temporary);
    if (!std::filesystem::exists(temporary)) throw std::runtime_error("cannot write " + temporary.string());
    try {
        SQLite::Database target(temporary.string(), SQLite::OPEN_READWRITE);
        copy_all(source, target);
        // A backup is one self-contained file: no -wal beside it.
        target.exec("PRAGMA journal_mode = DELETE");
    } catch (...) {
        std::filesystem::remove(temporary);
        throw;
    }
    ::chmod(temporary.c_str(), 0600);
    std::filesystem::rename(temporary, out);
    report.bytes = size_of(out);
    return report;
}

BackupReport restore_database(const std::filesystem::path& data_dir, const std::filesystem::path& file, int newest_known_version) {
    if (!std::filesystem::is_regular_file(file)) throw std::runtime_error("no backup file at " + file.string());
    BackupReport report;
    {
        SQLite::Database backup(file.string(), SQLite::OPEN_READONLY);
        try {
            report.schema_version = version_of(backup, file);
        } catch (const SQLite::Exception& error) {
            throw std::runtime_error(file.string() + " is not a wr database: " + error.what());
        }
        if (report.schema_version > newest_known_version)
            throw std::runtime_error(file.string() + " has schema version " + std::to_string(report.schema_version) +
                                     ", newer than this wr knows (" + std::to_string(newest_known_version) +
                                     "); restore it with the wr that wrote it");
        // Into the live file through SQLite, so its WAL and shared memory stay consistent.
        { const Database create(data_dir); } // the directory and file, with their modes, in WAL mode
        SQLite::Database target((data_dir / "wr.db").string(), SQLite::OPEN_READWRITE);
        copy_all(backup, target);
        target.exec("PRAGMA journal_mode = WAL");
    }
    report.bytes = size_of(file);
    return report;
}

} // namespace wr::store
