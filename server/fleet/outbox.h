#pragma once
// An edge's analytics on their way to the control node. Counts gather in an open batch; when
// nothing is in flight, the open batch is frozen under the next sequence number and sent. A
// frozen batch is sent again, unchanged, until the control node acknowledges it — an answer
// lost on the way makes a retry, which the control node recognises by its number and does not
// count twice. At most two batches exist, however long the control node is away: the one in
// flight and the open one, whose minutes merge as they come. Pure: no clock, no I/O.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fleet/report_wire.h"

namespace wr::fleet {

// A batch carries at most this many room-minutes (the oldest first), so that a backlog after a
// long outage goes in several pushes, each well under the admin API's body limit.
inline constexpr size_t k_max_minutes_per_batch = 1000;

class Outbox {
public:
    // A fresh stream: a new random name, numbering from 1.
    Outbox();
    Outbox(std::string stream, int64_t next_sequence);

    // Adds what was counted since the last call.
    void add(const RoomMinutes& records);
    // The batch to send now: the one in flight, or else the open one (its oldest
    // k_max_minutes_per_batch room-minutes), frozen now; nullptr when nothing was counted.
    const AnalyticsBatch* next();
    // The control node has merged the batch with this number.
    void acknowledge(int64_t sequence);

    bool empty() const { return !m_in_flight && m_open.empty(); }
    const std::string& stream() const { return m_stream; }
    int64_t next_sequence() const { return m_next_sequence; }

    // What is still to send, for <data-dir>/analytics-outbox.json; from_json reads it back, or
    // gives nullopt for a file that is not one.
    nlohmann::json to_json() const;
    static std::optional<Outbox> from_json(const nlohmann::json& json);

private:
    std::string m_stream;
    int64_t m_next_sequence = 1;
    std::optional<AnalyticsBatch> m_in_flight;
    RoomMinutes m_open;
};

} // namespace wr::fleet
