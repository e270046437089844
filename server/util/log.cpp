// Writes log lines to stderr, one write per line so lines from threads never interleave.
#include "util/log.h"

#include <atomic>
#include <string>
#include <unistd.h>

#include "util/escape.h"
#include "util/time_format.h"

namespace wr::util {
namespace {

// The one process-wide setting: logging goes to the process's stderr, which is itself global.
std::atomic<LogLevel> g_level{LogLevel::info};

std::string_view level_name(LogLevel level) {
    switch (level) {
    case LogLevel::debug: return "debug";
    case LogLevel::info: return "info";
    case LogLevel::warn: return "warn";
    case LogLevel::error: return "error";
    case LogLevel::off: break;
    }
    return "off";
}

} // namespace

void set_log_level(LogLevel level) { g_level = level; }

bool log_enabled(LogLevel level) { return level >= g_level.load(std::memory_order_relaxed); }

void log(LogLevel level, std::string_view component, std::string_view message) {
    if (!log_enabled(level)) return;
    std::string line = format_iso8601(SystemClock{}.now());
    line += ' ';
    line += level_name(level);
    line += ' ';
    line += component;
    line += ": ";
    // Messages carry what clients sent (paths, hosts, names, errors quoted from peers): one
    // message is one line, and it cannot write a control character or a stray byte to a terminal.
    line += printable_text(message);
    line += '\n';
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line.data(), line.size());
}

} // namespace wr::util
