#pragma once
// The `wr` command tree (CLI11). Each command group registers itself from its own file.
#include <CLI/CLI.hpp>

#include "context.h"

namespace wr::cli {

int run(int argc, char** argv);

// Builds the whole command tree on `root`, with `context` as the options every command shares.
void add_commands(CLI::App& root, Context& context);

void add_serve_commands(CLI::App& root, Context& context);   // serve, migrate
void add_backup_commands(CLI::App& root, Context& context);  // backup, restore
void add_zone_commands(CLI::App& root, Context& context);    // zones …
void add_room_commands(CLI::App& root, Context& context);    // rooms …
void add_event_commands(CLI::App& root, Context& context);   // events …
void add_rule_commands(CLI::App& root, Context& context);    // rules …
void add_settings_commands(CLI::App& root, Context& context); // settings …
void add_token_commands(CLI::App& root, Context& context);   // tokens …
void add_apply_commands(CLI::App& root, Context& context);   // apply, export
void add_template_commands(CLI::App& root, Context& context); // templates preview
void add_analytics_commands(CLI::App& root, Context& context); // analytics
void add_simulate_command(CLI::App& root, Context& context);   // simulate
void add_load_command(CLI::App& root, Context& context);       // load

} // namespace wr::cli
