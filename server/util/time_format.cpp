// Formats and parses the ISO 8601 timestamps of the admin API.
#include "util/time_format.h"

#include <cstdio>

namespace wr::util {
namespace {

bool read_digits(std::string_view text, size_t& at, size_t count, int& value) {
    if (at + count > text.size()) return false;
    value = 0;
    for (size_t i = 0; i < count; ++i) {
        const char c = text[at + i];
        if (c < '0' || c > '9') return false;
        value = value * 10 + (c - '0');
    }
    at += count;
    return true;
}

bool expect(std::string_view text, size_t& at, char c) {
    if (at >= text.size() || text[at] != c) return false;
    ++at;
    return true;
}

} // namespace

std::string format_iso8601(TimePoint time) {
    const auto days = std::chrono::floor<std::chrono::days>(time);
    const std::chrono::year_month_day date{days};
    const std::chrono::hh_mm_ss clock{time - days};
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(date.year()),
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                  static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                  static_cast<int>(clock.seconds().count()), static_cast<int>(clock.subseconds().count()));
    return buffer;
}

std::optional<TimePoint> parse_iso8601(std::string_view text) {
    size_t at = 0;
    int year, month, day, hour, minute, second;
    if (!read_digits(text, at, 4, year) || !expect(text, at, '-') || !read_digits(text, at, 2, month) ||
        !expect(text, at, '-') || !read_digits(text, at, 2, day))
        return std::nullopt;
    if (at >= text.size() || (text[at] != 'T' && text[at] != 't' && text[at] != ' ')) return std::nullopt;
    ++at;
    if (!read_digits(text, at, 2, hour) || !expect(text, at, ':') || !read_digits(text, at, 2, minute) ||
        !expect(text, at, ':') || !read_digits(text, at, 2, second))
        return std::nullopt;
    int milliseconds = 0;
    if (at < text.size() && text[at] == '.') {
        ++at;
        size_t digits = 0;
        int scale = 100;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
            milliseconds += (text[at] - '0') * scale;
            scale /= 10;
            ++at;
            ++digits;
        }
        if (digits == 0) return std::nullopt;
    }
    int offset_minutes = 0;
    if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
        ++at;
    } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
        const int sign = text[at] == '-' ? -1 : 1;
        ++at;
        int offset_hours, offset_mins;
        if (!read_digits(text, at, 2, offset_hours) || !expect(text, at, ':') || !read_digits(text, at, 2, offset_mins))
            return std::nullopt;
        if (offset_hours > 23 || offset_mins > 59) return std::nullopt;
        offset_minutes = sign * (offset_hours * 60 + offset_mins);
    } else {
        return std::nullopt; // a time without a zone is ambiguous
    }
    if (at != text.size()) return std::nullopt;

    const std::chrono::year_month_day date{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                                           std::chrono::day{static_cast<unsigned>(day)}};
    if (!date.ok() || hour > 23 || minute > 59 || second > 59) return std::nullopt;
    const TimePoint local = std::chrono::sys_days{date} + std::chrono::hours{hour} + std::chrono::minutes{minute} +
                            std::chrono::seconds{second} + Milliseconds{milliseconds};
    return local - std::chrono::minutes{offset_minutes};
}

std::string format_duration(Milliseconds duration) {
    using namespace std::chrono;
    const auto total_seconds = duration_cast<seconds>(duration).count();
    if (total_seconds < 60) return std::to_string(total_seconds) + (total_seconds == 1 ? " second" : " seconds");
    const auto total_minutes = total_seconds / 60;
    const auto hours_part = total_minutes / 60;
    const auto minutes_part = total_minutes % 60;
    std::string text;
    if (hours_part > 0) text = std::to_string(hours_part) + (hours_part == 1 ? " hour" : " hours");
    if (minutes_part > 0) {
        if (!text.empty()) text += ' ';
        text += std::to_string(minutes_part) + (minutes_part == 1 ? " minute" : " minutes");
    }
    return text;
}

} // namespace wr::util
