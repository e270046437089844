// Reads a configuration file with CLI11's own reader and checks each key against the command tree.
#include "config_file.h"

#include "util/nearest_name.h"

namespace wr::cli {
namespace {

CLI::App* section_command(CLI::App& app, const std::string& name) {
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == name) return sub;
    return nullptr;
}

bool has_option(const CLI::App& app, const std::string& key) {
    const CLI::Option* option = app.get_option_no_throw("--" + key);
    return option != nullptr && key != "help" && key != "version";
}

std::vector<std::string> option_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* option : app.get_options())
        for (const std::string& name : option->get_lnames())
            if (name != "help" && name != "version") names.push_back(name);
    return names;
}

// The subcommand (among root's) that has this option, for "put it under [serve]".
std::string section_having(CLI::App& root, const std::string& key) {
    for (CLI::App* sub : root.get_subcommands([](CLI::App*) { return true; }))
        if (has_option(*sub, key)) return sub->get_name();
    return {};
}

} // namespace

std::vector<std::string> config_file_problems(CLI::App& root, const std::string& path) {
    std::vector<CLI::ConfigItem> items;
    try {
        items = root.get_config_formatter()->from_file(path);
    } catch (const CLI::Error&) {
        return {}; // unreadable: CLI11 reports it when it reads the file itself
    }
    std::vector<std::string> problems;
    for (const CLI::ConfigItem& item : items) {
        if (item.name == "++" || item.name == "--") continue; // where a section opens and closes
        // The section names a command: [serve], or [rooms.create] for a command below another.
        CLI::App* app = &root;
        std::string section;
        for (const std::string& parent : item.parents) {
            section += (section.empty() ? "" : ".") + parent;
            CLI::App* sub = section_command(*app, parent);
            if (!sub) {
                std::vector<std::string> names;
                for (const CLI::App* known : app->get_subcommands([](const CLI::App*) { return true; }))
                    names.push_back(known->get_name());
                const auto guess = util::nearest_name(parent, names);
                problems.push_back("[" + section + "]: no wr command has this name" +
                                   (guess ? " (did you mean [" + *guess + "]?)" : ""));
                app = nullptr;
                break;
            }
            app = sub;
        }
        if (!app) continue;
        if (has_option(*app, item.name)) continue;
        const std::string where = section.empty() ? item.name : "[" + section + "] " + item.name;
        if (section.empty()) {
            if (const std::string owner = section_having(root, item.name); !owner.empty()) {
                problems.push_back(where + ": an option of `wr " + owner + "`; put it under [" + owner + "]");
                continue;
            }
        } else if (has_option(root, item.name)) {
            problems.push_back(where + ": a global option; put it at the top of the file, before any section");
            continue;
        }
        problems.push_back(where + ": unknown option" + util::did_you_mean(item.name, option_names(*app)));
    }
    // A section opened twice reports each of its problems once.
    std::vector<std::string> unique;
    for (const std::string& problem : problems)
        if (std::find(unique.begin(), unique.end(), problem) == unique.end()) unique.push_back(problem);
    return unique;
}

std::vector<std::string> config_files_in(const std::vector<std::string>& arguments) {
    std::vector<std::string> files;
    for (size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i] == "--") break;
        if (arguments[i] == "--config" && i + 1 < arguments.size())
            files.push_back(arguments[++i]);
        else if (arguments[i].starts_with("--config="))
            files.push_back(arguments[i].substr(9));
    }
    return files;
}

} // namespace wr::cli
