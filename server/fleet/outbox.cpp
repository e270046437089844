// Batches an edge's analytics for sending, and keeps them across restarts.
#include "fleet/outbox.h"

#include <algorithm>
#include <vector>

#include "util/secure.h"

namespace wr::fleet {

Outbox::Outbox() : m_stream(util::new_id()) {}

Outbox::Outbox(std::string stream, int64_t next_sequence) : m_stream(std::move(stream)), m_next_sequence(next_sequence) {}

void Outbox::add(const RoomMinutes& records) {
    for (const auto& [room_id, minutes] : records)
        if (!minutes.empty()) merge_into(m_open, {{room_id, minutes}});
}

const AnalyticsBatch* Outbox::next() {
    if (!m_in_flight && !m_open.empty()) {
        size_t minutes = 0;
        for (const auto& [room_id, records] : m_open) minutes += records.size();
        AnalyticsBatch batch{m_stream, m_next_sequence++, {}};
        if (minutes <= k_max_minutes_per_batch) {
            batch.records = std::move(m_open);
            m_open.clear();
        } else {
            // The oldest minutes first, whatever their room.
            std::vector<std::pair<int64_t, std::string>> order;
            for (const auto& [room_id, records] : m_open)
                for (const auto& [minute, record] : records) order.emplace_back(minute, room_id);
            std::sort(order.begin(), order.end());
            order.resize(k_max_minutes_per_batch);
            for (const auto& [minute, room_id] : order) {
                auto room = m_open.find(room_id);
                batch.records[room_id].emplace(minute, std::move(room->second.at(minute)));
                room->second.erase(minute);
                if (room->second.empty()) m_open.erase(room);
            }
        }
        m_in_flight = std::move(batch);
    }
    return m_in_flight ? &*m_in_flight : nullptr;
}

void Outbox::acknowledge(int64_t sequence) {
    if (m_in_flight && m_in_flight->sequence == sequence) m_in_flight.reset();
}

nlohmann::json Outbox::to_json() const {
    nlohmann::json out = {{"stream", m_stream}, {"next_sequence", m_next_sequence}, {"in_flight", nullptr},
                          {"open", room_minutes_to_json(m_open)}};
    if (m_in_flight)
        out["in_flight"] = {{"sequence", m_in_flight->sequence}, {"records", room_minutes_to_json(m_in_flight->records)}};
    return out;
}

std::optional<Outbox> Outbox::from_json(const nlohmann::json& json) {
    if (!json.is_object()) return std::nullopt;
    const auto stream = json.find("stream");
    const auto next_sequence = json.find("next_sequence");
    const auto in_flight = json.find("in_flight");
    const auto open = json.find("open");
    if (stream == json.end() || !stream->is_string() || stream->get<std::string>().empty() || next_sequence == json.end() ||
        !next_sequence->is_number_integer() || next_sequence->get<int64_t>() < 1 || in_flight == json.end() || open == json.end())
        return std::nullopt;
    Outbox outbox(stream->get<std::string>(), next_sequence->get<int64_t>());
    auto open_records = room_minutes_from_json(*open);
    if (!open_records) return std::nullopt;
    outbox.m_open = std::move(*open_records);
    if (!in_flight->is_null()) {
        const auto sequence = in_flight->is_object() ? in_flight->find("sequence") : in_flight->end();
        const auto records = in_flight->is_object() ? in_flight->find("records") : in_flight->end();
        if (sequence == in_flight->end() || !sequence->is_number_integer() || sequence->get<int64_t>() < 1 ||
            sequence->get<int64_t>() >= outbox.m_next_sequence || records == in_flight->end())
            return std::nullopt;
        auto flight_records = room_minutes_from_json(*records);
        if (!flight_records) return std::nullopt;
        outbox.m_in_flight = AnalyticsBatch{outbox.m_stream, sequence->get<int64_t>(), std::move(*flight_records)};
    }
    return outbox;
}

} // namespace wr::fleet
