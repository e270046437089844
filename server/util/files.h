#pragma once
// Small filesystem helpers for the data directory.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace wr::util {

std::optional<std::string> read_text_file(const std::filesystem::path& path);

// Writes atomically (temporary file, fsync, rename) with mode 0600, for keys and tokens.
void write_secret_file(const std::filesystem::path& path, std::string_view content);

// Writes atomically with the default mode.
void write_text_file(const std::filesystem::path& path, std::string_view content);

} // namespace wr::util
