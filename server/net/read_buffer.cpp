// The edge's read buffers.
#include "net/read_buffer.h"

#include <algorithm>
#include <cstring>

namespace wr::net {

std::pair<char*, size_t> ReadBuffer::prepare(size_t want, size_t capacity) {
    if (m_capacity - m_end >= want) return {m_data.get() + m_end, m_capacity - m_end};
    const size_t held = size();
    if (m_begin > 0) { // move what is left to the front
        std::memmove(m_data.get(), m_data.get() + m_begin, held);
        m_begin = 0;
        m_end = held;
    }
    if (m_capacity - m_end < want && m_capacity < capacity) {
        const size_t grown = std::min(capacity, std::max({held + want, k_initial, m_capacity * 2}));
        auto bigger = std::make_unique<char[]>(grown);
        if (held > 0) std::memcpy(bigger.get(), m_data.get(), held);
        m_data = std::move(bigger);
        m_capacity = grown;
    }
    return {m_data.get() + m_end, m_capacity - m_end};
}

void ReadBuffer::consume(size_t used) {
    m_begin += std::min(used, size());
    if (m_begin == m_end) m_begin = m_end = 0;
}

void ReadBuffer::release_if_empty() {
    if (!empty() || m_capacity <= k_initial) return;
    m_data.reset();
    m_capacity = 0;
    m_begin = m_end = 0;
}

} // namespace wr::net
