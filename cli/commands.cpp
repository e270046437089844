// Builds the command tree, runs the chosen command and maps failures to exit statuses:
// 1 for errors (with "wr: error: …" on stderr), 2 for usage mistakes.
#include "commands.h"

#include <iostream>

#include "config_file.h"
#include "typos.h"
#include "util/files.h"

namespace wr::cli {
namespace {

bool is_local(const std::string& url) {
    for (const char* host : {"://127.0.0.1", "://localhost", "://[::1]"})
        if (url.find(host) != std::string::npos) return true;
    return false;
}

} // namespace

ApiClient Context::client() const {
    std::string secret = token;
    if (secret.empty() && is_local(api_url)) {
        if (const auto file = util::read_text_file(data_dir / "admin.token")) {
            secret = *file;
            while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r' || secret.back() == ' ')) secret.pop_back();
        }
    }
    if (secret.empty())
        throw CliError("no API token: pass --token, set WR_API_TOKEN, or run where " + (data_dir / "admin.token").string() +
                       " can be read (see `wr tokens create`)");
    return ApiClient(api_url, secret, api_ca_file);
}

void add_commands(CLI::App& root, Context& context) {
    root.description("wr: a self-hosted virtual waiting room.\n\n"
                     "  wr serve                       run the edge and the admin API\n"
                     "  wr zones|rooms|events|rules …  manage them through the admin API\n"
                     "  wr apply -f rooms.json         make the configuration match a file\n");
    root.name("wr");
    root.set_version_flag("--version", "wr 0.1.0");
    root.require_subcommand(1);
    root.fallthrough();
    root.set_config("--config", "", "Read options from a TOML or INI file ([serve] section for serve's options)");
    root.add_option("--api", context.api_url, "Admin API base URL")->envname("WR_API_URL")->capture_default_str();
    root.add_option("--token", context.token, "Admin API token (default: <data-dir>/admin.token for a local API)")
        ->envname("WR_API_TOKEN");
    root.add_option("--api-ca-file", context.api_ca_file,
                    "PEM certificate of the CA that signed the admin API's certificate, for an https:// --api (default: the system's CAs)")
        ->envname("WR_API_CA_FILE")
        ->check(CLI::ExistingFile);
    root.add_option("--data-dir", context.data_dir, "Data directory (database, keys, first admin token)")
        ->envname("WR_DATA_DIR")
        ->capture_default_str();
    root.add_option("-o,--output", context.output, "Output format: a table, the bare JSON result for scripts, or csv (analytics)")
        ->check(CLI::IsMember({"table", "json", "csv"}))
        ->capture_default_str();

    add_serve_commands(root, context);
    add_backup_commands(root, context);
    add_zone_commands(root, context);
    add_room_commands(root, context);
    add_event_commands(root, context);
    add_rule_commands(root, context);
    add_settings_commands(root, context);
    add_token_commands(root, context);
    add_apply_commands(root, context);
    add_template_commands(root, context);
    add_analytics_commands(root, context);
    add_simulate_command(root, context);
    add_load_command(root, context);
}

int run(int argc, char** argv) {
    Context context;
    CLI::App root;
    add_commands(root, context);
    const std::vector<std::string> arguments(argv + 1, argv + argc);

    try {
        // CLI11 would skip a key it does not know; a mistyped one is better stopped here.
        for (const std::string& file : config_files_in(arguments)) {
            std::string message;
            for (const std::string& problem : config_file_problems(root, file))
                message += (message.empty() ? "" : "\n  ") + file + ": " + problem;
            if (!message.empty()) throw CliError(message);
        }
        root.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return root.exit(help);
    } catch (const CLI::CallForAllHelp& help) {
        return root.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return root.exit(version);
    } catch (const CLI::ParseError& error) {
        // A word that is no command or flag where it stands explains the failure best.
        if (const std::optional<std::string> diagnosis = diagnose_unknown_words(root, arguments)) {
            std::cerr << "wr: error: " << *diagnosis << '\n';
            return 2;
        }
        std::cerr << "wr: error: " << error.what() << "\nRun with --help for usage.\n";
        return 2;
    } catch (const CliError& error) {
        std::cerr << "wr: error: " << error.what() << '\n';
        return 1;
    } catch (const std::exception& error) {
        std::cerr << "wr: error: " << error.what() << '\n';
        return 1;
    }
    return 0;
}

} // namespace wr::cli
