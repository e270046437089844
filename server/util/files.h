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

// Creates the data directory (and missing parents) readable by this user only: 0700. A
// directory that already exists and is open to its group or others is made 0700 (with a
// warning in the log); when that fails, throws a message naming the directory and its mode.
void create_private_directory(const std::filesystem::path& path);

// Makes sure `path` exists and is readable by this user only (0600), before a library such as
// SQLite creates it with the umask's mode; SQLite gives its -wal and -shm files the mode of the
// database file.
void make_private_file(const std::filesystem::path& path);

// Writes atomically with the default mode.
void write_text_file(const std::filesystem::path& path, std::string_view content);

} // namespace wr::util
