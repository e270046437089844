// `wr backup` and `wr restore`: local commands on the server's data directory.
#include <iostream>

#include "commands.h"
#include "store/backup.h"
#include "store/migrate.h"
#include "util/data_dir_lock.h"

namespace wr::cli {

void add_backup_commands(CLI::App& root, Context& context) {
    auto out = std::make_shared<std::string>();
    CLI::App* backup = root.add_subcommand("backup", "Copy the database while wr runs (a consistent snapshot, mode 0600)");
    backup->add_option("--out", *out, "The file to write")->required();
    backup->footer("Example:\n  wr backup --data-dir /var/lib/wr --out /backups/wr-$(date +%F).db\n\n"
                   "Run it as the user wr runs as, on the same machine; the server keeps serving meanwhile.\n"
                   "Back up <data-dir>/cookie.key too (see docs/operations.md, Backups).");
    backup->callback([&context, out] {
        try {
            const store::BackupReport report = store::backup_database(context.data_dir, *out);
            std::cout << "backed up " << (context.data_dir / "wr.db").string() << " to " << *out << " (schema version "
                      << report.schema_version << ", " << report.bytes << " bytes)\n";
        } catch (const std::exception& error) {
            throw CliError(std::string("backup failed: ") + error.what());
        }
    });

    auto file = std::make_shared<std::string>();
    CLI::App* restore = root.add_subcommand("restore", "Put a backup in place of the database (wr must be stopped)");
    restore->add_option("FILE", *file, "A file written by wr backup")->required();
    restore->footer("Example:\n  wr restore --data-dir /var/lib/wr /backups/wr-2026-11-24.db\n\n"
                    "Refuses while a wr serve uses the data directory, and refuses a backup from a newer wr.");
    restore->callback([&context, file] {
        try {
            const util::DataDirLock lock(context.data_dir);
            int newest = 0;
            for (const store::Migration& migration : store::embedded_migrations()) newest = std::max(newest, migration.version);
            const store::BackupReport report = store::restore_database(context.data_dir, *file, newest);
            std::cout << "restored " << *file << " into " << (context.data_dir / "wr.db").string() << " (schema version "
                      << report.schema_version << ")\n";
        } catch (const std::exception& error) {
            throw CliError(std::string("restore failed: ") + error.what());
        }
    });
}

} // namespace wr::cli
