#pragma once
// Data files compiled into the binary: migrations/, templates/ and schema/ (see cmake/embed_files.cmake).
#include <optional>
#include <string_view>
#include <vector>

namespace wr::util {

struct EmbeddedFile {
    std::string_view path;     // relative to the repository root, e.g. "migrations/0001_init.sql"
    std::string_view content;
};

const std::vector<EmbeddedFile>& embedded_files();

// The content of one embedded file, or nullopt when the build did not embed it.
std::optional<std::string_view> embedded_file(std::string_view path);

} // namespace wr::util
