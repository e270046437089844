#include <doctest/doctest.h>

#include "edge/h2_connection.h"

using wr::edge::H2Stream;

TEST_CASE("h2 stream: a stream kept for reuse keeps the room of an ordinary body, not that of a large answer it passed on") {
    wr::asio::io_context io;
    H2Stream stream(1, io.get_executor());
    stream.body_out.assign(1u << 20, 'x'); // an answer's megabyte, taken by the visitor
    stream.body_in.assign(256u << 10, 'y');
    stream.reuse(3);
    CHECK(stream.id == 3);
    CHECK(stream.body_out.empty());
    CHECK(stream.body_in.empty());
    CHECK(stream.body_out.capacity() <= H2Stream::k_spare_room);
    CHECK(stream.body_in.capacity() <= H2Stream::k_spare_room);

    stream.body_out.assign(4096, 'x'); // an ordinary answer: its room is kept for the next
    const size_t room = stream.body_out.capacity();
    stream.reuse(5);
    CHECK(stream.body_out.empty());
    CHECK(stream.body_out.capacity() == room);
}
