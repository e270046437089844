// Spawns the wr binary with posix_spawn and collects its output through temporary files.
#include "support/process.h"

#include <cstdlib>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/temp_dir.h"
#include "util/files.h"

extern char** environ;

namespace wr::test {

ProcessResult run_wr(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& environment,
                     const std::string& input) {
    TempDir temp;
    const std::string in_path = (temp.path() / "in").string();
    const std::string out_path = (temp.path() / "out").string();
    const std::string err_path = (temp.path() / "err").string();
    util::write_text_file(in_path, input);

    std::vector<std::string> argv_storage{WR_BINARY};
    argv_storage.insert(argv_storage.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& argument : argv_storage) argv.push_back(argument.data());
    argv.push_back(nullptr);

    std::vector<std::string> env_storage;
    for (char** entry = environ; *entry; ++entry) {
        const std::string text = *entry;
        // The tests choose the API and token explicitly.
        if (text.starts_with("WR_")) continue;
        env_storage.push_back(text);
    }
    for (const auto& [name, value] : environment) env_storage.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (std::string& entry : env_storage) envp.push_back(entry.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = 0;
    ProcessResult result;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) == 0) {
        int status = 0;
        waitpid(pid, &status, 0);
        result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    result.out = util::read_text_file(out_path).value_or("");
    result.err = util::read_text_file(err_path).value_or("");
    return result;
}

} // namespace wr::test
