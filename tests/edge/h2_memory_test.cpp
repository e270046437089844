#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "edge/h2_memory.h"

using wr::edge::H2Memory;

TEST_CASE("h2 memory: a freed block serves the next allocation of its size class" * doctest::skip(H2Memory::k_kept_bytes == 0)) {
    H2Memory memory;
    nghttp2_mem* mem = memory.allocator();
    void* first = mem->malloc(100, mem->mem_user_data); // class of 128
    std::memset(first, 0xab, 100);
    mem->free(first, mem->mem_user_data);
    CHECK(memory.kept(2) == 1);
    CHECK(mem->malloc(120, mem->mem_user_data) == first);
    CHECK(memory.kept(2) == 0);
    void* other = mem->malloc(200, mem->mem_user_data); // another class: a new block
    CHECK(other != first);
    mem->free(first, mem->mem_user_data);
    mem->free(other, mem->mem_user_data);
    mem->free(nullptr, mem->mem_user_data);
}

TEST_CASE("h2 memory: calloc zeroes a reused block, realloc keeps the contents, large blocks bypass the lists") {
    H2Memory memory;
    nghttp2_mem* mem = memory.allocator();
    auto* dirty = static_cast<unsigned char*>(mem->malloc(64, mem->mem_user_data));
    std::memset(dirty, 0xff, 64);
    mem->free(dirty, mem->mem_user_data);
    auto* clean = static_cast<unsigned char*>(mem->calloc(8, 8, mem->mem_user_data));
    if (H2Memory::k_kept_bytes > 0) CHECK(clean == dirty);
    for (int i = 0; i < 64; ++i) CHECK(clean[i] == 0);
    mem->free(clean, mem->mem_user_data);
    CHECK(mem->calloc(SIZE_MAX / 2, 4, mem->mem_user_data) == nullptr); // the product overflows

    auto* text = static_cast<char*>(mem->realloc(nullptr, 10, mem->mem_user_data));
    std::memcpy(text, "0123456789", 10);
    CHECK(mem->realloc(text, 30, mem->mem_user_data) == text); // still within its class's room
    auto* grown = static_cast<char*>(mem->realloc(text, 100000, mem->mem_user_data)); // past the largest class
    CHECK(std::memcmp(grown, "0123456789", 10) == 0);
    grown[99999] = 'z';
    auto* larger = static_cast<char*>(mem->realloc(grown, 200000, mem->mem_user_data));
    CHECK(std::memcmp(larger, "0123456789", 10) == 0);
    CHECK(larger[99999] == 'z');
    mem->free(larger, mem->mem_user_data);
    for (size_t c = 0; c < H2Memory::k_classes; ++c) CHECK(memory.kept(c) <= 1);
}

TEST_CASE("h2 memory: a burst's blocks are kept only up to the bound of their class") {
    H2Memory memory;
    nghttp2_mem* mem = memory.allocator();
    std::vector<void*> burst;
    for (int i = 0; i < 50000; ++i) burst.push_back(mem->malloc(32, mem->mem_user_data));
    for (void* block : burst) mem->free(block, mem->mem_user_data);
    CHECK(memory.kept(0) == H2Memory::k_kept_bytes / 32);
}
