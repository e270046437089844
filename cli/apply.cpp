// `wr apply -f` and `wr export`: the whole configuration as one JSON file, for CI.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>

#include "commands.h"
#include "output.h"
#include "util/files.h"

namespace wr::cli {
namespace {

std::string read_input(const std::string& file) {
    if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    const auto content = util::read_text_file(file);
    if (!content) throw CliError("cannot read " + file);
    return *content;
}

// The file as JSON, or why not with where (the parser's "at line 3, column 5").
nlohmann::json read_document(const std::string& file) {
    const std::string text = read_input(file);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& error) {
        std::string why = error.what();
        // Without the library's "[json.exception.parse_error.101] ".
        if (why.starts_with("[json.exception.") && why.find("] ") != std::string::npos) why = why.substr(why.find("] ") + 2);
        throw CliError(file + " is not valid JSON: " + why);
    }
}

// One line per change ("+ create", "~ update", "- delete"), and the parts of the file that
// were not applied ("! skip", with why) apart from the count of changes.
void print_changes(const nlohmann::json& result) {
    const nlohmann::json& changes = result["changes"];
    if (changes.empty()) {
        std::cout << "no changes\n";
        return;
    }
    size_t skipped = 0;
    for (const auto& change : changes) {
        const std::string action = change.value("action", "");
        const char sign = action == "create" ? '+' : action == "delete" ? '-' : action == "skip" ? '!' : '~';
        if (action == "skip") ++skipped;
        std::cout << sign << ' ' << action << ' ' << change.value("kind", "") << ' ' << change.value("target", "");
        if (!change["fields"].empty()) {
            std::string fields;
            for (const auto& field : change["fields"]) fields += (fields.empty() ? "" : ", ") + field.get<std::string>();
            std::cout << " (" << fields << ")";
        }
        if (change.contains("reason")) std::cout << ": " << change.value("reason", "");
        std::cout << '\n';
    }
    const std::string skips = skipped ? ", " + std::to_string(skipped) + " skipped" : "";
    if (result.value("dry_run", false))
        std::cout << changes.size() - skipped << " change(s) planned" << skips << "; dry run, nothing was changed\n";
    else
        std::cout << changes.size() - skipped << " change(s) applied" << skips << '\n';
}

// A notification destination's secret is never exported; a file may name the environment variable
// that holds it ("secret_env"), and it is read here, so the secret stays out of the file. An unset
// variable sends no secret: an existing destination keeps its own, and a new one is refused by the
// server. Returns the document index of each destination whose variable is unset, with its name.
std::map<size_t, std::string> resolve_secrets(nlohmann::json& document) {
    std::map<size_t, std::string> unset;
    if (!document.is_object() || !document.contains("notification_destinations") || !document["notification_destinations"].is_array())
        return unset;
    nlohmann::json& destinations = document["notification_destinations"];
    for (size_t i = 0; i < destinations.size(); ++i) {
        nlohmann::json& destination = destinations[i];
        if (!destination.is_object() || !destination.contains("secret_env")) continue;
        const nlohmann::json variable = destination["secret_env"];
        if (!variable.is_string()) throw CliError("notification_destinations: secret_env must name an environment variable");
        destination.erase("secret_env");
        const char* value = std::getenv(variable.get<std::string>().c_str());
        if (value && *value)
            destination["secret"] = value;
        else
            unset.emplace(i, variable.get<std::string>());
    }
    return unset;
}

// The server's "secret: is required" of a new destination, saying which variable was not set.
ApiError naming_unset_variables(const ApiError& error, const std::map<size_t, std::string>& unset) {
    std::vector<std::string> messages = error.messages();
    for (std::string& message : messages)
        for (const auto& [index, variable] : unset) {
            const std::string field = "notification_destinations[" + std::to_string(index) + "].secret: is required";
            if (message.starts_with(field))
                message = field + " for a new destination, and the environment variable " + variable + " named by secret_env is not set";
        }
    return ApiError(std::move(messages));
}

} // namespace

void add_apply_commands(CLI::App& root, Context& context) {
    {
        struct Options {
            std::string file;
            bool dry_run = false;
            bool prune = false;
        };
        auto options = std::make_shared<Options>();
        CLI::App* apply = root.add_subcommand("apply", "Make the configuration match a file (one transaction; idempotent)");
        apply->add_option("-f,--file", options->file, "The configuration ('-' for stdin), as `wr export` writes it")->required();
        apply->add_flag("--dry-run", options->dry_run, "Check and show the changes without making them");
        apply->add_flag("--prune", options->prune, "Also delete what the file leaves out: zones (their tokens with them), rooms, events and rules it does not list (all of a room's events or rules when it has no such key), notification destinations it does not name");
        apply->footer("Example:\n  wr apply -f rooms.json --dry-run\n  wr apply -f rooms.json\n\n"
                      "File shape: {\"zones\":[{\"name\",\"origin\",\"settings\":{…},\"waiting_rooms\":[{…,\"events\":[…],\"rules\":[…]}]}],\n"
                      "             \"notification_destinations\":[{\"name\",\"url\",\"kinds\",…,\"secret_env\":\"VARIABLE\"}]}\n"
                      "Secrets are never exported: a destination keeps its secret when the file gives none, and a new\n"
                      "one takes it from the environment variable named by secret_env.");
        apply->callback([&context, options] {
            nlohmann::json document = read_document(options->file);
            const std::map<size_t, std::string> unset = resolve_secrets(document);
            std::string query = "?dry_run=" + std::string(options->dry_run ? "true" : "false") +
                                "&prune=" + std::string(options->prune ? "true" : "false");
            nlohmann::json result;
            try {
                result = context.client().post("/client/v4/apply" + query, document);
            } catch (const ApiError& error) {
                throw naming_unset_variables(error, unset);
            }
            if (context.json_output())
                std::cout << result.dump(2) << '\n';
            else
                print_changes(result);
        });
    }
    {
        auto file = std::make_shared<std::string>();
        CLI::App* exporter = root.add_subcommand("export", "Write the whole configuration as JSON (for wr apply)");
        exporter->add_option("-f,--file", *file, "Write to this file instead of stdout");
        exporter->footer("Example:\n  wr export > rooms.json");
        exporter->callback([&context, file] {
            const std::string text = context.client().get("/client/v4/export").dump(2) + "\n";
            if (file->empty()) {
                std::cout << text;
            } else {
                util::write_text_file(*file, text);
            }
        });
    }
}

} // namespace wr::cli
