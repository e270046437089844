#pragma once
// The edge's access log: one line per request, in nginx's "combined" format (so existing tools
// read it) or as JSON (every field). A connection fills its AccessRecord as the request goes;
// at its end the line is formatted into its thread's AccessLogBuffer, which hands whole buffers
// to a util::LineWriter. Nothing here touches a file, takes a lock that waits, or allocates once
// the buffers have grown to their working size: the log costs the request path a formatting.
#include <chrono>
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>

#include "edge/decision.h"
#include "edge/request_id.h"
#include "util/clock.h"
#include "util/line_writer.h"

namespace wr::edge {

enum class AccessLogFormat { combined, json };

// One request as the log tells it. The head's fields are copied in (a head's views do not
// outlive the parts of the request that use them) and keep their room from request to request;
// the rest are views of what outlives the line: the connection's address text, and the
// configuration snapshot the request holds.
struct AccessRecord {
    bool active = false;                  // a request began (cleared once its line is written)
    util::TimePoint time{};               // when its head arrived
    std::chrono::steady_clock::time_point started{}; // its head's first byte: the duration runs from here
    std::string_view client;              // the address as judged (after --trusted-proxy): needs no escaping
    std::string forwarded_client;         // its text, when a trusted proxy named it
    std::string method, target, host, referer, user_agent;
    std::string_view protocol = "HTTP/1.1"; // "HTTP/1.0", "HTTP/1.1"; HTTP/2 when the edge speaks it
    int status = 0;
    uint64_t bytes_in = 0;                // the request's body, as read from the visitor
    uint64_t bytes_out = 0;               // everything written to the visitor: head and body
    int64_t origin_first_byte_us = -1;    // from sending to the origin to its answer's head; -1: no answer
    std::string_view zone, room;          // names in the request's configuration snapshot
    Decision decision = Decision::none;
    bool new_visitor = false;             // the visitor had no valid cookie for the room
    RequestId request_id;                 // made, or checked by acceptable_request_id: needs no escaping

    // Starts a request: clears everything but the strings' room.
    void begin(util::TimePoint now, std::chrono::steady_clock::time_point steady);
};

// The time of a line to the second, formatted once per second rather than once per line.
struct SecondText {
    int64_t second = INT64_MIN;
    char iso[20];      // "2026-11-22T10:00:00"
    char combined[29]; // "[22/Nov/2026:10:00:00 +0000]"
    void update(util::TimePoint time);
};

// Appends one line (with its newline) for `record`. `node` is this node's name (JSON only).
// The target as the log keeps it: the value of a Turnstile token (?cf_wr_turnstile=…) replaced
// by "redacted" — a token is a credential for as long as siteverify would accept it.
void assign_logged_target(std::string& out, std::string_view target);

void format_access_line(std::string& out, AccessLogFormat format, const AccessRecord& record, std::string_view node,
                        std::chrono::steady_clock::time_point finished, SecondText& seconds);

// A thread's lines, handed to the writer when enough have gathered (or on flush()).
class AccessLogBuffer {
public:
    AccessLogBuffer(util::LineWriter* writer, AccessLogFormat format, std::string node, util::LineWriterCounters* counters);

    bool enabled() const { return m_writer != nullptr; }
    void append(const AccessRecord& record, std::chrono::steady_clock::time_point finished);
    // Hands what has gathered to the writer (a timer calls it, so lines appear within moments).
    void flush();
    // flush(), and whether nothing is left (the writer's lock was free).
    bool empty_after_flush() {
        flush();
        return m_used == 0;
    }

private:
    util::LineWriter* m_writer;
    AccessLogFormat m_format;
    std::string m_node_json; // the node's name, escaped for JSON
    util::LineWriterCounters* m_counters;
    std::string m_lines; // its first m_used bytes are lines; past them, room for the next
    size_t m_used = 0;
    uint64_t m_count = 0;
    SecondText m_seconds;
};

} // namespace wr::edge
