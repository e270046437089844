#pragma once
// Line-oriented logging to stderr: "2026-11-22T10:00:00.000Z info admin: listening on …".
// Never pass secrets (tokens, cookie keys) to it. A message is written through
// util::printable_text, so it may quote whatever a client sent and still be one line.
#include <string_view>

namespace wr::util {

enum class LogLevel { debug, info, warn, error, off };

void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);
void log(LogLevel level, std::string_view component, std::string_view message);

inline void log_debug(std::string_view component, std::string_view message) { log(LogLevel::debug, component, message); }
inline void log_info(std::string_view component, std::string_view message) { log(LogLevel::info, component, message); }
inline void log_warn(std::string_view component, std::string_view message) { log(LogLevel::warn, component, message); }
inline void log_error(std::string_view component, std::string_view message) { log(LogLevel::error, component, message); }

} // namespace wr::util
