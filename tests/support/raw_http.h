#pragma once
// Bytes on a socket, for requests no well-behaved client library sends: duplicate headers,
// absolute-form targets, backslashes, chunked trailers, bodies announced and never sent.
#include <chrono>
#include <string>

namespace wr::test {

struct RawReply {
    int status = 0;        // 0: no answer within the time allowed
    std::string head;      // status line and headers, as received
    std::string body;
    bool closed = false;   // the server closed the connection after this answer
    std::string header(const std::string& name) const; // "" when absent; case-insensitive
};

// Connects to 127.0.0.1:port, sends `bytes`, and reads one answer (framed by Content-Length),
// waiting at most `timeout` for it.
RawReply raw_exchange(int port, const std::string& bytes, std::chrono::milliseconds timeout = std::chrono::milliseconds{3000});

} // namespace wr::test
