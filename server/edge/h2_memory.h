#pragma once
// nghttp2's memory for one edge thread's HTTP/2 sessions. nghttp2 allocates for every stream (the
// stream, each frame it queues, each header field it decodes) and frees it when the stream ends:
// a busy connection makes and drops thousands a second, in bursts larger than malloc's per-thread
// cache, which then takes its locked path. Here freed blocks wait in per-size free lists for the
// next stream instead, each list bounded so a burst's blocks do not stay forever. One thread
// only: every session of a Worker is made, used and freed on its thread.
#include <array>
#include <cstddef>
#include <vector>

#include <nghttp2/nghttp2.h>

namespace wr::edge {

class H2Memory {
public:
    H2Memory();
    ~H2Memory();
    H2Memory(const H2Memory&) = delete;
    H2Memory& operator=(const H2Memory&) = delete;

    // For nghttp2_session_server_new3: valid while this lives.
    nghttp2_mem* allocator() { return &m_mem; }

    void* allocate(size_t size);
    void release(void* block);
    void* resize(void* block, size_t size);

    // Blocks of the size classes: 32 bytes to 32 KiB, doubling; larger ones go to malloc.
    static constexpr size_t k_smallest = 32;
    static constexpr size_t k_classes = 11;
    // What a class keeps on its free list at most. Nothing under AddressSanitizer: a block kept
    // for reuse would hide a use after free from it.
#if defined(__SANITIZE_ADDRESS__)
    static constexpr size_t k_kept_bytes = 0;
#else
    static constexpr size_t k_kept_bytes = 512 * 1024;
#endif
    size_t kept(size_t size_class) const { return m_free[size_class].size(); }

private:
    nghttp2_mem m_mem;
    std::array<std::vector<void*>, k_classes> m_free;
};

} // namespace wr::edge
