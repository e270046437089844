#pragma once
// A connection's read buffer: bytes received and not yet used, in one contiguous block that
// starts small, grows up to a cap while a head is read, and is given back while the connection
// sits idle, so ten thousand idle keep-alive connections cost little memory.
#include <cstddef>
#include <memory>
#include <string_view>

namespace wr::net {

class ReadBuffer {
public:
    static constexpr size_t k_initial = 4096;

    // The bytes received and not yet consumed.
    const char* data() const { return m_data.get() + m_begin; }
    size_t size() const { return m_end - m_begin; }
    bool empty() const { return m_begin == m_end; }
    std::string_view view() const { return {data(), size()}; }

    // Room for at least one more byte and up to `want` (the block grows to at most `capacity`
    // bytes, unused ones moved to the front first). Returns the free space; its size is 0 when the
    // buffer holds `capacity` bytes already.
    std::pair<char*, size_t> prepare(size_t want, size_t capacity);
    void commit(size_t received) { m_end += received; }
    void consume(size_t used);
    // Frees the block when nothing is buffered (an idle connection).
    void release_if_empty();

private:
    std::unique_ptr<char[]> m_data;
    size_t m_capacity = 0;
    size_t m_begin = 0;
    size_t m_end = 0;
};

} // namespace wr::net
