// A --config file is read strictly: every key must be an option where it stands.
#include <doctest/doctest.h>

#include <fstream>

#include "commands.h"
#include "config_file.h"
#include "support/temp_dir.h"

namespace {

std::vector<std::string> problems_of(const std::string& text) {
    wr::test::TempDir dir;
    const std::string path = (dir.path() / "wr.toml").string();
    std::ofstream(path) << text;
    wr::cli::Context context;
    CLI::App root;
    wr::cli::add_commands(root, context);
    return wr::cli::config_file_problems(root, path);
}

using Problems = std::vector<std::string>;

} // namespace

TEST_CASE("cli::config_file_problems accepts the global options at the top and serve's under [serve]") {
    CHECK(problems_of("data-dir = \"/var/lib/wr\"\n"
                      "api = \"http://127.0.0.1:9090\"\n"
                      "[serve]\n"
                      "edge-listen = \"0.0.0.0:8080\"\n"
                      "log-level = \"info\"\n"
                      "trusted-proxy = [\"10.0.0.0/8\", \"192.168.0.0/16\"]\n") == Problems{});
    CHECK(problems_of("") == Problems{});
    CHECK(problems_of("serve.log-level = \"debug\"\n") == Problems{}); // a dotted key names the section too
}

TEST_CASE("cli::config_file_problems names unknown keys, misplaced keys and unknown sections") {
    CHECK(problems_of("[serve]\nlog-levl = \"debug\"\n") == Problems{"[serve] log-levl: unknown option (did you mean log-level?)"});
    CHECK(problems_of("edge-listen = \"127.0.0.1:8080\"\n") == Problems{"edge-listen: an option of `wr serve`; put it under [serve]"});
    CHECK(problems_of("[serve]\ndata-dir = \"/var/lib/wr\"\n") ==
          Problems{"[serve] data-dir: a global option; put it at the top of the file, before any section"});
    CHECK(problems_of("[server]\nlog-level = \"debug\"\n") == Problems{"[server]: no wr command has this name (did you mean [serve]?)"});
    CHECK(problems_of("colour = \"blue\"\n") == Problems{"colour: unknown option"});
    CHECK(problems_of("data-dri = \"x\"\n[serve]\nedge-listne = \"x\"\nadmin-listen = \"x\"\n") ==
          Problems{"data-dri: unknown option (did you mean data-dir?)", "[serve] edge-listne: unknown option (did you mean edge-listen?)"});
}

TEST_CASE("cli::config_files_in finds --config FILE and --config=FILE") {
    CHECK(wr::cli::config_files_in({"--config", "a.toml", "serve"}) == std::vector<std::string>{"a.toml"});
    CHECK(wr::cli::config_files_in({"serve", "--config=b.toml"}) == std::vector<std::string>{"b.toml"});
    CHECK(wr::cli::config_files_in({"serve", "--", "--config", "c"}).empty());
}
