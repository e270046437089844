// Tables for people: cells cut to a width, between characters, and columns aligned by characters.
#include <doctest/doctest.h>

#include <iostream>
#include <sstream>

#include "context.h"
#include "output.h"

namespace {

// What print_list writes, as a table.
std::string table_of(const nlohmann::json& items, const std::vector<wr::cli::Column>& columns) {
    wr::cli::Context context;
    std::ostringstream out;
    std::streambuf* saved = std::cout.rdbuf(out.rdbuf());
    wr::cli::print_list(context, items, columns);
    std::cout.rdbuf(saved);
    return out.str();
}

} // namespace

TEST_CASE("cli::print_list cuts a long cell between characters, and aligns columns by characters") {
    std::string accents;
    for (int i = 0; i < 128; ++i) accents += "é";
    const nlohmann::json tokens = {{{"name", accents}, {"scope", "read"}}, {{"name", "ci"}, {"scope", "edit"}}};
    const std::string table = table_of(tokens, {{"NAME", "name"}, {"SCOPE", "scope"}});
    // 57 characters and "...": 60 in all, and never half an "é".
    std::string cut;
    for (int i = 0; i < 57; ++i) cut += "é";
    cut += "...";
    CHECK(table == "NAME" + std::string(58, ' ') + "SCOPE\n" + cut + "  read\nci" + std::string(60, ' ') + "edit\n");
    CHECK(nlohmann::json(table).dump().size() > 0); // valid UTF-8 throughout
}
