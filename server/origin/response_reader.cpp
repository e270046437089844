// An origin answer, step by step, and the verdict on its connection.
#include "origin/response_reader.h"

namespace wr::origin {
namespace {

// A head that announces a body (a length, or a coding) where the status allows none.
bool announces_body(const net::MessageHead& head) { return head.content_length > 0 || !head.find("transfer-encoding").empty(); }

} // namespace

void ResponseReader::begin(bool head_request) {
    m_parser.begin(head_request);
    m_phase = Phase::head;
    m_head_request = head_request;
    m_ended_by_close = false;
    m_interim_read = false;
    m_interim_count = 0;
}

ResponseReader::Step ResponseReader::read(const char* data, size_t size, size_t& consumed, std::vector<std::string_view>& pieces) {
    consumed = 0;
    switch (m_phase) {
    case Phase::head: {
        // After an interim answer the next head starts where the caller consumed up to.
        if (m_interim_read) {
            m_parser.begin(m_head_request);
            m_interim_read = false;
        }
        if (size == 0) return Step::more;
        switch (m_parser.parse_head(data, std::min(size, net::k_max_response_head))) {
        case net::HeadStatus::incomplete:
            if (size < net::k_max_response_head) return Step::more;
            break; // a head larger than wr reads
        case net::HeadStatus::complete: {
            const net::MessageHead& head = m_parser.head();
            consumed = head.size;
            // Three digits, the first 1 to 5 (RFC 9110 §15): a 099 or a 600 is no answer.
            if (head.status < 100 || head.status > 599) break;
            if (head.status >= 100 && head.status < 200 && head.status != 101) {
                if (++m_interim_count > k_max_interim) break;
                m_interim_read = true;
                return Step::interim;
            }
            m_phase = Phase::body;
            return Step::head;
        }
        default: break;
        }
        m_phase = Phase::failed;
        return Step::invalid;
    }
    case Phase::body:
        switch (m_parser.parse_body(data, size, consumed, pieces)) {
        case net::BodyStatus::complete: m_phase = Phase::ended; return Step::end;
        case net::BodyStatus::more: return size == 0 ? Step::more : Step::body;
        case net::BodyStatus::invalid: break;
        }
        m_phase = Phase::failed;
        return Step::invalid;
    case Phase::ended: return Step::end;
    case Phase::failed: return Step::invalid;
    }
    return Step::invalid;
}

ResponseReader::Step ResponseReader::closed() {
    if (m_phase == Phase::ended) return Step::end;
    if (m_phase == Phase::body && m_parser.finish_body() == net::BodyStatus::complete) {
        m_phase = Phase::ended;
        m_ended_by_close = true;
        return Step::end;
    }
    m_phase = Phase::failed;
    return Step::invalid;
}

bool ResponseReader::reusable(size_t unread) const {
    if (m_phase != Phase::ended || m_ended_by_close || unread > 0) return false;
    const net::MessageHead& head = m_parser.head();
    if (!head.keep_alive || head.framing == net::BodyFraming::until_close) return false;
    // The answer had no body by the rules, so nothing tells where an origin that sends one
    // anyway would stop: such a connection ends with its answer.
    if (m_head_request) return false;
    if ((head.status == 204 || head.status == 304) && announces_body(head)) return false;
    return true;
}

} // namespace wr::origin
