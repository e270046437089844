// Walks the arguments down the command tree as CLI11 would, and stops at the first word that
// fits nowhere, to say what it was probably meant to be.
#include "typos.h"

#include "util/nearest_name.h"

namespace wr::cli {
namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
    return names;
}

CLI::App* find_subcommand(CLI::App& app, const std::string& word) {
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (sub->check_name(word)) return sub;
    return nullptr;
}

// The option a word names on this command or, since options fall through, on a command above.
const CLI::Option* find_option(const CLI::App* app, const std::string& word) {
    for (; app != nullptr; app = app->get_parent())
        if (const CLI::Option* option = app->get_option_no_throw(word)) return option;
    return nullptr;
}

// Every long flag this command accepts, its own first.
std::vector<std::string> flag_names(const CLI::App* app) {
    std::vector<std::string> names;
    for (; app != nullptr; app = app->get_parent())
        for (const CLI::Option* option : app->get_options())
            for (const std::string& name : option->get_lnames())
                if (name != "help") names.push_back("--" + name);
    return names;
}

std::string command_line(const std::vector<std::string>& words) {
    std::string line;
    for (const std::string& word : words) line += (line.empty() ? "" : " ") + word;
    return line;
}

} // namespace

std::optional<std::string> diagnose_unknown_words(CLI::App& root, const std::vector<std::string>& arguments) {
    CLI::App* app = &root;
    std::vector<std::string> path = {"wr"};
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& word = arguments[i];
        if (word == "--") break;
        if (word.size() > 1 && word[0] == '-') {
            const std::string flag = word.substr(0, word.find('='));
            const CLI::Option* option = find_option(app, flag);
            if (!option) {
                if (!flag.starts_with("--")) return std::nullopt; // a short flag: CLI11's own message is as good
                const std::string what = flag + " is not an option of `" + command_line(path) + "`";
                const std::string guess = util::did_you_mean(flag, flag_names(app));
                return what + (guess.empty() ? "; `" + command_line(path) + " --help` lists them" : guess);
            }
            // Skip the option's value, unless it came as --flag=value.
            if (option->get_type_size_min() > 0 && word.find('=') == std::string::npos) ++i;
            continue;
        }
        if (CLI::App* sub = find_subcommand(*app, word)) {
            app = sub;
            path.push_back(word);
            continue;
        }
        const std::vector<std::string> names = subcommand_names(*app);
        if (names.empty()) continue; // a positional argument (a room's name, a file)
        const std::optional<std::string> guess = util::nearest_name(word, names);
        const std::string what = "`" + word + "` is not a command of `" + command_line(path) + "`";
        if (!guess) return what + "; `" + command_line(path) + " --help` lists them";
        // Carry the guess on: `wr room lst` is most likely `wr rooms list`.
        std::vector<std::string> meant = path;
        meant.push_back(*guess);
        CLI::App* guessed = find_subcommand(*app, *guess);
        if (i + 1 < arguments.size() && !arguments[i + 1].starts_with("-")) {
            const std::vector<std::string> next_names = subcommand_names(*guessed);
            if (find_subcommand(*guessed, arguments[i + 1]))
                meant.push_back(arguments[i + 1]);
            else if (const auto next = util::nearest_name(arguments[i + 1], next_names))
                meant.push_back(*next);
        }
        return what + " (did you mean `" + command_line(meant) + "`?)";
    }
    return std::nullopt;
}

} // namespace wr::cli
