#pragma once
// Counts something for as long as a scope holds it: a connection, a request being answered. The
// count is read from other threads (a drain waits for it to reach zero), hence the atomic.
#include <atomic>

namespace wr::util {

class ScopedCount {
public:
    explicit ScopedCount(std::atomic<int>& count) : m_count(count) { m_count.fetch_add(1, std::memory_order_acq_rel); }
    ~ScopedCount() { m_count.fetch_sub(1, std::memory_order_acq_rel); }
    ScopedCount(const ScopedCount&) = delete;
    ScopedCount& operator=(const ScopedCount&) = delete;

private:
    std::atomic<int>& m_count;
};

} // namespace wr::util
