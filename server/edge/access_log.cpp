// Formats access log lines and gathers them per thread.
#include "edge/access_log.h"

#include "edge/turnstile.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace wr::edge {
namespace {

// Lines gather up to this much before a thread hands them over (the flush timer sends less).
constexpr size_t k_hand_over_bytes = 32 * 1024;
// A thread whose hand-overs keep failing (the writer's lock busy each time) drops its lines
// beyond this rather than grow.
constexpr size_t k_max_thread_bytes = 1024 * 1024;

void append_number(std::string& out, uint64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, static_cast<size_t>(end - digits));
}

void append_two(char* at, int value) {
    at[0] = static_cast<char>('0' + value / 10 % 10);
    at[1] = static_cast<char>('0' + value % 10);
}

// Milliseconds with three decimals: "12.345".
void append_millis(std::string& out, int64_t microseconds) {
    if (microseconds < 0) microseconds = 0;
    append_number(out, static_cast<uint64_t>(microseconds / 1000));
    const int64_t fraction = microseconds % 1000;
    const char digits[4] = {'.', static_cast<char>('0' + fraction / 100), static_cast<char>('0' + fraction / 10 % 10),
                            static_cast<char>('0' + fraction % 10)};
    out.append(digits, 4);
}

// A JSON string's content: quotes, backslashes and control characters escaped, and bytes that
// are not UTF-8 (a visitor's target may hold anything) as \u00XX, so every line stays valid JSON.
void append_json_text(std::string& out, std::string_view text) {
    static constexpr char k_hex[] = "0123456789abcdef";
    size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            // The common case, a run of plain ASCII, in one append.
            size_t end = i + 1;
            while (end < text.size()) {
                const auto next = static_cast<unsigned char>(text[end]);
                if (next < 0x20 || next >= 0x7f || next == '"' || next == '\\') break;
                ++end;
            }
            out.append(text.data() + i, end - i);
            i = end;
            continue;
        }
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        if (c >= 0x80) {
            // A whole, valid UTF-8 sequence goes as it is.
            const size_t length = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
            bool valid = length > 0 && i + length <= text.size();
            for (size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
            if (valid) {
                out.append(text.data() + i, length);
                i += length;
                continue;
            }
        }
        const char escaped[6] = {'\\', 'u', '0', '0', k_hex[c >> 4], k_hex[c & 15]};
        out.append(escaped, 6);
        ++i;
    }
}

void json_field(std::string& out, std::string_view name, std::string_view value) {
    out += ",\"";
    out += name;
    out += "\":\"";
    append_json_text(out, value);
    out += '"';
}

void json_nullable(std::string& out, std::string_view name, std::string_view value) {
    if (value.empty()) {
        out += ",\"";
        out += name;
        out += "\":null";
    } else {
        json_field(out, name, value);
    }
}

void json_number(std::string& out, std::string_view name, uint64_t value) {
    out += ",\"";
    out += name;
    out += "\":";
    append_number(out, value);
}

// A field of the combined format: as is, but a quote, backslash or control byte escaped as
// nginx does (\xHH), so that the quoted fields stay one field each.
void append_combined_text(std::string& out, std::string_view text) {
    static constexpr char k_hex[] = "0123456789ABCDEF";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) {
            const char escaped[4] = {'\\', 'x', k_hex[c >> 4], k_hex[c & 15]};
            out.append(escaped, 4);
        } else {
            out += ch;
        }
    }
}

void append_combined_quoted(std::string& out, std::string_view text) {
    out += '"';
    if (text.empty()) out += '-';
    else append_combined_text(out, text);
    out += '"';
}

} // namespace

std::string_view decision_name(Decision decision) {
    switch (decision) {
    case Decision::none: return "none";
    case Decision::admitted: return "admitted";
    case Decision::queued: return "queued";
    case Decision::turnstile_challenge: return "turnstile_challenge";
    case Decision::turnstile_verified: return "turnstile_verified";
    case Decision::rejected: return "rejected";
    case Decision::join_limited: return "join_limited";
    case Decision::bypassed: return "bypassed";
    case Decision::crawler: return "crawler";
    case Decision::passthrough: return "passthrough";
    case Decision::no_room: return "no_room";
    case Decision::misdirected: return "misdirected";
    case Decision::bad_request: return "bad_request";
    case Decision::headers_too_large: return "headers_too_large";
    case Decision::request_timeout: return "request_timeout";
    case Decision::body_too_large: return "body_too_large";
    case Decision::method_not_allowed: return "method_not_allowed";
    case Decision::version_not_supported: return "version_not_supported";
    case Decision::internal_error: return "internal_error";
    }
    return "none";
}

void AccessRecord::begin(util::TimePoint now, std::chrono::steady_clock::time_point steady) {
    active = true;
    time = now;
    started = steady;
    for (std::string* text : {&client, &method, &target, &host, &referer, &user_agent, &zone, &room}) text->clear();
    protocol = "HTTP/1.1";
    status = 0;
    bytes_in = 0;
    bytes_out = 0;
    origin_first_byte_us = -1;
    decision = Decision::none;
    new_visitor = false;
    request_id.size = 0;
}

void SecondText::update(util::TimePoint time) {
    const int64_t now = std::chrono::floor<std::chrono::seconds>(time.time_since_epoch()).count();
    if (now == second) return;
    second = now;
    static constexpr const char* k_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const auto days = std::chrono::floor<std::chrono::days>(time);
    const std::chrono::year_month_day date{days};
    const std::chrono::hh_mm_ss clock{std::chrono::floor<std::chrono::seconds>(time - days)};
    const int year = static_cast<int>(date.year());
    const int month = static_cast<int>(static_cast<unsigned>(date.month()));
    const int day = static_cast<int>(static_cast<unsigned>(date.day()));
    const int hours = static_cast<int>(clock.hours().count());
    const int minutes = static_cast<int>(clock.minutes().count());
    const int seconds = static_cast<int>(clock.seconds().count());
    // "2026-11-22T10:00:00"
    append_two(iso, year / 100);
    append_two(iso + 2, year % 100);
    iso[4] = '-';
    append_two(iso + 5, month);
    iso[7] = '-';
    append_two(iso + 8, day);
    iso[10] = 'T';
    append_two(iso + 11, hours);
    iso[13] = ':';
    append_two(iso + 14, minutes);
    iso[16] = ':';
    append_two(iso + 17, seconds);
    iso[19] = '\0';
    // "[22/Nov/2026:10:00:00 +0000]"
    combined[0] = '[';
    append_two(combined + 1, day);
    combined[3] = '/';
    const char* name = k_months[(month + 11) % 12];
    combined[4] = name[0];
    combined[5] = name[1];
    combined[6] = name[2];
    combined[7] = '/';
    append_two(combined + 8, year / 100);
    append_two(combined + 10, year % 100);
    combined[12] = ':';
    append_two(combined + 13, hours);
    combined[15] = ':';
    append_two(combined + 16, minutes);
    combined[18] = ':';
    append_two(combined + 19, seconds);
    std::memcpy(combined + 21, " +0000]", 7);
}

void assign_logged_target(std::string& out, std::string_view target) {
    out.assign(target);
    if (target.find('?') == std::string_view::npos) return; // no query: nothing to redact (most requests)
    const std::string_view name = k_turnstile_parameter;
    for (size_t at = out.find(name); at != std::string::npos; at = out.find(name, at)) {
        const size_t equals = at + name.size();
        // Only a query parameter of that name: after '?' or '&', followed by '='.
        if (at == 0 || (out[at - 1] != '?' && out[at - 1] != '&') || equals >= out.size() || out[equals] != '=') {
            at = equals;
            continue;
        }
        const size_t value = equals + 1;
        const size_t end = std::min(out.find('&', value), out.size());
        out.replace(value, end - value, "redacted");
        at = value + 8;
    }
}

void format_access_line(std::string& out, AccessLogFormat format, const AccessRecord& record, std::string_view node,
                        std::chrono::steady_clock::time_point finished, SecondText& seconds) {
    seconds.update(record.time);
    if (format == AccessLogFormat::combined) {
        // 203.0.113.9 - - [22/Nov/2026:10:00:00 +0000] "GET /shop HTTP/1.1" 200 2326 "-" "Mozilla/5.0"
        out += record.client.empty() ? std::string_view("-") : std::string_view(record.client);
        out += " - - ";
        out.append(seconds.combined, 28);
        out += " \"";
        if (record.method.empty()) {
            out += '-';
        } else {
            append_combined_text(out, record.method);
            out += ' ';
            append_combined_text(out, record.target);
            out += ' ';
            out += record.protocol;
        }
        out += "\" ";
        append_number(out, static_cast<uint64_t>(record.status));
        out += ' ';
        append_number(out, record.bytes_out);
        out += ' ';
        append_combined_quoted(out, record.referer);
        out += ' ';
        append_combined_quoted(out, record.user_agent);
        out += '\n';
        return;
    }
    const int64_t millis = std::chrono::floor<std::chrono::milliseconds>(record.time.time_since_epoch()).count() % 1000;
    out += "{\"time\":\"";
    out.append(seconds.iso, 19);
    const char fraction[6] = {'.', static_cast<char>('0' + millis / 100), static_cast<char>('0' + millis / 10 % 10),
                              static_cast<char>('0' + millis % 10), 'Z', '"'};
    out.append(fraction, 6);
    json_field(out, "client", record.client);
    json_field(out, "host", record.host);
    json_field(out, "method", record.method);
    json_field(out, "target", record.target);
    json_field(out, "protocol", record.protocol);
    json_number(out, "status", static_cast<uint64_t>(record.status));
    json_number(out, "bytes_in", record.bytes_in);
    json_number(out, "bytes_out", record.bytes_out);
    out += ",\"duration_ms\":";
    append_millis(out, std::chrono::duration_cast<std::chrono::microseconds>(finished - record.started).count());
    out += ",\"origin_first_byte_ms\":";
    if (record.origin_first_byte_us < 0) out += "null";
    else append_millis(out, record.origin_first_byte_us);
    json_nullable(out, "zone", record.zone);
    json_nullable(out, "room", record.room);
    json_field(out, "decision", decision_name(record.decision));
    out += record.new_visitor ? ",\"new_visitor\":true" : ",\"new_visitor\":false";
    json_field(out, "node", node);
    json_field(out, "request_id", record.request_id.view());
    json_field(out, "referer", record.referer);
    json_field(out, "user_agent", record.user_agent);
    out += "}\n";
}

AccessLogBuffer::AccessLogBuffer(util::LineWriter* writer, AccessLogFormat format, std::string node, util::LineWriterCounters* counters)
    : m_writer(writer), m_format(format), m_node(std::move(node)), m_counters(counters) {
    if (m_writer) m_lines.reserve(k_hand_over_bytes + 4096);
}

void AccessLogBuffer::append(const AccessRecord& record, std::chrono::steady_clock::time_point finished) {
    if (!m_writer) return;
    if (m_lines.size() >= k_max_thread_bytes) {
        m_counters->dropped.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    format_access_line(m_lines, m_format, record, m_node, finished, m_seconds);
    ++m_count;
    if (m_lines.size() >= k_hand_over_bytes) flush();
}

void AccessLogBuffer::flush() {
    if (!m_writer || m_lines.empty()) return;
    if (m_writer->submit(m_lines, m_count)) m_count = 0;
}

} // namespace wr::edge
