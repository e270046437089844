// Formats access log lines and gathers them per thread.
#include "edge/access_log.h"

#include "edge/turnstile.h"
#include "util/utf8.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace wr::edge {
namespace {

// Lines gather up to this much before a thread hands them over (the flush timer sends less).
constexpr size_t k_hand_over_bytes = 32 * 1024;
// A thread whose hand-overs keep failing (the writer's lock busy each time) drops its lines
// beyond this rather than grow.
constexpr size_t k_max_thread_bytes = 1024 * 1024;

// Every byte of a field takes at most 6 in a line (JSON's \u00XX; combined's \xHH takes 4). The
// rest of a line, its names, numbers, time and punctuation, takes less than this (about 410 bytes
// of JSON at the most).
constexpr size_t k_line_frame = 512;

// The bytes a field may hold as they are, in either format: printable ASCII but the quote and the
// backslash. Anything else is escaped (JSON: as JSON does; combined: \xHH, as nginx does).
constexpr std::array<bool, 256> k_plain = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x7f; ++c) plain[static_cast<size_t>(c)] = c != '"' && c != '\\';
    return plain;
}();

// Whether none of the eight bytes of `x` is to be escaped; each test is exact for "any of the
// eight": a byte below 0x20, of 0x7f or more, a quote, a backslash.
constexpr bool word_plain(uint64_t x) {
    constexpr uint64_t k_ones = 0x0101010101010101, k_highs = 0x8080808080808080;
    constexpr uint64_t k_quotes = k_ones * '"', k_backslashes = k_ones * '\\';
    const uint64_t control = (x - k_ones * 0x20) & ~x;
    const uint64_t high = (x + k_ones) | x;
    const uint64_t quote = ((x ^ k_quotes) - k_ones) & ~(x ^ k_quotes);
    const uint64_t backslash = ((x ^ k_backslashes) - k_ones) & ~(x ^ k_backslashes);
    return ((control | high | quote | backslash) & k_highs) == 0;
}

template <typename Word> Word load(const char* at) {
    Word word;
    std::memcpy(&word, at, sizeof word);
    return word;
}

// Whether a field of at most 16 bytes has nothing to escape, its bytes gathered into one or two
// words by overlapping loads (a field shorter than four fills the rest of its word with 'a').
bool short_plain(const char* at, size_t size) {
    if (size >= 8) return word_plain(load<uint64_t>(at)) && word_plain(load<uint64_t>(at + size - 8));
    if (size >= 4) return word_plain(load<uint32_t>(at) | static_cast<uint64_t>(load<uint32_t>(at + size - 4)) << 32);
    if (size == 0) return true;
    const auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(at[i])); };
    return word_plain(0x6161616161000000 | byte(0) | byte(size / 2) << 8 | byte(size - 1) << 16);
}

// How many bytes `text` starts with that k_plain holds: eight at a time while none is to be
// escaped, the last eight of the field likewise, then one at a time.
size_t plain_prefix(std::string_view text) {
    size_t i = 0;
    if (text.size() >= 8) {
        while (i + 8 <= text.size() && word_plain(load<uint64_t>(text.data() + i))) i += 8;
        if (i + 8 > text.size() && word_plain(load<uint64_t>(text.data() + text.size() - 8))) return text.size();
    }
    while (i < text.size() && k_plain[static_cast<unsigned char>(text[i])]) ++i;
    return i;
}

// Whether `text` has nothing to escape: most fields, and short.
bool all_plain(std::string_view text) {
    return text.size() <= 16 ? short_plain(text.data(), text.size()) : plain_prefix(text) == text.size();
}

// Writes a line into room made for it beforehand (access_line_bound): no capacity check and no
// call per piece, and literals copied as constants. A line costs little more than its bytes.
class LineCursor {
public:
    explicit LineCursor(char* at) : m_at(at) {}
    char* end() const { return m_at; }
    void put(char c) { *m_at++ = c; }
    // Most fields are short: copied inline in two overlapping moves rather than by a call.
    void put(std::string_view text) {
        const char* from = text.data();
        const size_t size = text.size();
        if (size >= 8 && size <= 16) {
            copy<8>(m_at, from);
            copy<8>(m_at + size - 8, from + size - 8);
        } else if (size >= 4 && size < 8) {
            copy<4>(m_at, from);
            copy<4>(m_at + size - 4, from + size - 4);
        } else if (size > 0 && size < 4) {
            m_at[0] = from[0];
            m_at[size / 2] = from[size / 2];
            m_at[size - 1] = from[size - 1];
        } else if (size > 16) {
            std::memcpy(m_at, from, size);
        }
        m_at += size;
    }
    // The request id: its whole array in one constant move (the line's room allows for it), then
    // only its size counted.
    void put(const RequestId& id) {
        copy<sizeof id.text>(m_at, id.text);
        m_at += id.size;
    }
    template <size_t N> void literal(const char (&text)[N]) {
        std::memcpy(m_at, text, N - 1);
        m_at += N - 1;
    }
    // A status (three digits) and a zero are most numbers of a line: written without a call.
    void number(uint64_t value) {
        if (value < 10) {
            *m_at++ = static_cast<char>('0' + value);
        } else if (value >= 100 && value < 1000) {
            m_at[0] = static_cast<char>('0' + value / 100);
            m_at[1] = static_cast<char>('0' + value / 10 % 10);
            m_at[2] = static_cast<char>('0' + value % 10);
            m_at += 3;
        } else {
            m_at = std::to_chars(m_at, m_at + 20, value).ptr;
        }
    }
    // Milliseconds with three decimals: "12.345".
    void millis(int64_t microseconds) {
        if (microseconds < 0) microseconds = 0;
        number(static_cast<uint64_t>(microseconds / 1000));
        const int64_t fraction = microseconds % 1000;
        m_at[0] = '.';
        m_at[1] = static_cast<char>('0' + fraction / 100);
        m_at[2] = static_cast<char>('0' + fraction / 10 % 10);
        m_at[3] = static_cast<char>('0' + fraction % 10);
        m_at += 4;
    }

    // A JSON string's content: quotes, backslashes and control characters escaped, and bytes that
    // are not UTF-8 (a visitor's target may hold anything) as \u00XX, so every line stays valid
    // JSON. Most fields have nothing to escape: one copy.
    void json_text(std::string_view text) {
        if (all_plain(text)) put(text);
        else json_escaped(text);
    }
    void json_escaped(std::string_view text) {
        static constexpr char k_hex[] = "0123456789abcdef";
        size_t i = plain_prefix(text);
        put(text.substr(0, i));
        while (i < text.size()) {
            const auto c = static_cast<unsigned char>(text[i]);
            if (k_plain[c]) {
                const size_t run = plain_prefix(text.substr(i));
                put(text.substr(i, run));
                i += run;
                continue;
            }
            if (c == '"' || c == '\\') {
                put('\\');
                put(static_cast<char>(c));
                ++i;
                continue;
            }
            if (c >= 0x80) {
                // A well-formed UTF-8 sequence goes as it is; anything else (an overlong form, a
                // surrogate, a code point past U+10FFFF) is escaped byte by byte.
                const size_t length = util::utf8_sequence_length(text.substr(i));
                if (length > 0) {
                    put(text.substr(i, length));
                    i += length;
                    continue;
                }
            }
            const char escaped[6] = {'\\', 'u', '0', '0', k_hex[c >> 4], k_hex[c & 15]};
            put(std::string_view(escaped, 6));
            ++i;
        }
    }

    // A field of the combined format: as is, but a quote, backslash or control byte escaped as
    // nginx does (\xHH), so that the quoted fields stay one field each.
    void combined_text(std::string_view text) {
        if (all_plain(text)) put(text);
        else combined_escaped(text);
    }
    void combined_escaped(std::string_view text) {
        static constexpr char k_hex[] = "0123456789ABCDEF";
        size_t i = plain_prefix(text);
        put(text.substr(0, i));
        for (; i < text.size(); ++i) {
            const auto c = static_cast<unsigned char>(text[i]);
            if (k_plain[c]) {
                put(static_cast<char>(c));
            } else {
                const char escaped[4] = {'\\', 'x', k_hex[c >> 4], k_hex[c & 15]};
                put(std::string_view(escaped, 4));
            }
        }
    }

    void combined_quoted(std::string_view text) {
        put('"');
        if (text.empty()) put('-');
        else combined_text(text);
        put('"');
    }

    // A string, or null when it is empty.
    void json_nullable(std::string_view text) {
        if (text.empty()) {
            literal("null");
            return;
        }
        put('"');
        json_text(text);
        put('"');
    }

private:
    template <size_t N> static void copy(char* to, const char* from) { std::memcpy(to, from, N); }

    char* m_at;
};

void append_two(char* at, int value) {
    at[0] = static_cast<char>('0' + value / 10 % 10);
    at[1] = static_cast<char>('0' + value % 10);
}

// The node's name as a JSON string's content, escaped once rather than per line.
std::string escaped_for_json(std::string_view text) {
    std::string out(6 * text.size(), '\0');
    LineCursor cursor(out.data());
    cursor.json_text(text);
    out.resize(static_cast<size_t>(cursor.end() - out.data()));
    return out;
}

// The most a line for `record` can take, the node's name escaped.
size_t access_line_bound(const AccessRecord& record, std::string_view node_json) {
    const size_t fields = record.client.size() + record.method.size() + record.target.size() + record.host.size() +
                          record.referer.size() + record.user_agent.size() + record.protocol.size() + record.zone.size() +
                          record.room.size() + node_json.size() + record.request_id.size;
    return k_line_frame + sizeof record.request_id.text + 6 * fields;
}

// Writes the line for `record` at `at`, which has access_line_bound() bytes of room; returns its end.
char* write_access_line(char* at, AccessLogFormat format, const AccessRecord& record, std::string_view node_json,
                        std::chrono::steady_clock::time_point finished, SecondText& seconds) {
    seconds.update(record.time);
    LineCursor out(at);
    if (format == AccessLogFormat::combined) {
        // 203.0.113.9 - - [22/Nov/2026:10:00:00 +0000] "GET /shop HTTP/1.1" 200 2326 "-" "Mozilla/5.0"
        if (record.client.empty()) out.put('-');
        else out.put(record.client);
        out.literal(" - - ");
        out.put(std::string_view(seconds.combined, 28));
        out.literal(" \"");
        if (record.method.empty()) {
            out.put('-');
        } else {
            out.combined_text(record.method);
            out.put(' ');
            out.combined_text(record.target);
            out.put(' ');
            out.put(record.protocol);
        }
        out.literal("\" ");
        out.number(static_cast<uint64_t>(record.status));
        out.put(' ');
        out.number(record.bytes_out);
        out.put(' ');
        out.combined_quoted(record.referer);
        out.put(' ');
        out.combined_quoted(record.user_agent);
        out.put('\n');
        return out.end();
    }
    // Fields that are plain by construction go as they are: the client (an address's text), the
    // protocol and decision (wr's own words), the request id (hex, or a proxy's checked by
    // acceptable_request_id) and the node (escaped once, by the caller). The others are scanned.
    const int64_t millis = std::chrono::floor<std::chrono::milliseconds>(record.time.time_since_epoch()).count() % 1000;
    out.literal("{\"time\":\"");
    out.put(std::string_view(seconds.iso, 19));
    const char fraction[5] = {'.', static_cast<char>('0' + millis / 100), static_cast<char>('0' + millis / 10 % 10),
                              static_cast<char>('0' + millis % 10), 'Z'};
    out.put(std::string_view(fraction, 5));
    out.literal("\",\"client\":\"");
    out.put(record.client);
    out.literal("\",\"host\":\"");
    out.json_text(record.host);
    out.literal("\",\"method\":\"");
    out.json_text(record.method);
    out.literal("\",\"target\":\"");
    out.json_text(record.target);
    out.literal("\",\"protocol\":\"");
    out.put(record.protocol);
    out.literal("\",\"status\":");
    out.number(static_cast<uint64_t>(record.status));
    out.literal(",\"bytes_in\":");
    out.number(record.bytes_in);
    out.literal(",\"bytes_out\":");
    out.number(record.bytes_out);
    out.literal(",\"duration_ms\":");
    out.millis(std::chrono::duration_cast<std::chrono::microseconds>(finished - record.started).count());
    out.literal(",\"origin_first_byte_ms\":");
    if (record.origin_first_byte_us < 0) out.literal("null");
    else out.millis(record.origin_first_byte_us);
    out.literal(",\"zone\":");
    out.json_nullable(record.zone);
    out.literal(",\"room\":");
    out.json_nullable(record.room);
    out.literal(",\"decision\":\"");
    out.put(decision_name(record.decision));
    if (record.new_visitor) out.literal("\",\"new_visitor\":true,\"node\":\"");
    else out.literal("\",\"new_visitor\":false,\"node\":\"");
    out.put(node_json);
    out.literal("\",\"request_id\":\"");
    out.put(record.request_id);
    out.literal("\",\"referer\":\"");
    out.json_text(record.referer);
    out.literal("\",\"user_agent\":\"");
    out.json_text(record.user_agent);
    out.literal("\"}\n");
    return out.end();
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
    client = {};
    for (std::string* text : {&method, &target, &host, &referer, &user_agent}) text->clear();
    zone = {};
    room = {};
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
    const std::string node_json = escaped_for_json(node);
    const size_t used = out.size();
    out.resize(used + access_line_bound(record, node_json));
    out.resize(static_cast<size_t>(write_access_line(out.data() + used, format, record, node_json, finished, seconds) - out.data()));
}

AccessLogBuffer::AccessLogBuffer(util::LineWriter* writer, AccessLogFormat format, std::string node, util::LineWriterCounters* counters)
    : m_writer(writer), m_format(format), m_node_json(escaped_for_json(node)), m_counters(counters) {
    if (m_writer) m_lines.reserve(k_hand_over_bytes + 4096);
}

void AccessLogBuffer::append(const AccessRecord& record, std::chrono::steady_clock::time_point finished) {
    if (!m_writer) return;
    if (m_used >= k_max_thread_bytes) {
        m_counters->dropped.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    // Room is made by resize, which writes zeros over it: only when a buffer grows, not per line
    // nor per hand-over (the writer's spares come back with their size).
    const size_t room = m_used + access_line_bound(record, m_node_json);
    if (m_lines.size() < room) m_lines.resize(std::max(room, m_lines.capacity()));
    m_used = static_cast<size_t>(write_access_line(m_lines.data() + m_used, m_format, record, m_node_json, finished, m_seconds) -
                                 m_lines.data());
    ++m_count;
    if (m_used >= k_hand_over_bytes) flush();
}

void AccessLogBuffer::flush() {
    if (!m_writer || m_used == 0) return;
    if (m_writer->submit(m_lines, m_used, m_count)) {
        m_count = 0;
        m_used = 0; // m_lines is a spare now, or these lines were dropped: written over from its start
    }
}

} // namespace wr::edge
