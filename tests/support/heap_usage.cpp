// Asks the allocator in use how much it has handed out.
#include "support/heap_usage.h"

#include <cstddef>
#include <malloc.h>

#if defined(__SANITIZE_ADDRESS__)
// The sanitizer runtime's own count (GCC installs no header that declares it).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace wr::test {

uint64_t heap_in_use() {
#if defined(__SANITIZE_ADDRESS__)
    return __sanitizer_get_current_allocated_bytes();
#else
    const struct mallinfo2 info = ::mallinfo2();
    return info.uordblks + info.hblkhd;
#endif
}

} // namespace wr::test
