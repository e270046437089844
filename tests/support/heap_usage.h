#pragma once
// The bytes this process's heap holds for it: for tests that check that memory stays flat while
// something (an edge running in the test process) moves many more bytes than that.
#include <cstdint>

namespace wr::test {

// Allocated and not yet freed: glibc's count (mallinfo2: arenas and mmapped blocks), or, under
// AddressSanitizer, its allocator's (freed blocks in its quarantine not counted).
uint64_t heap_in_use();

} // namespace wr::test
