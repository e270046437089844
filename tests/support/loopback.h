#pragma once
// A listening socket on 127.0.0.1, on a port the kernel picks, for the stand-in servers of the
// tests (origins, relays, Redis nodes).
#include <string>

namespace wr::test {

struct LoopbackListener {
    int fd = -1;
    int port = 0;
};

// Close-on-exec, so a child the test forks (curl) holds none of the server's connections open.
// Throws std::runtime_error naming `who` when it cannot listen.
LoopbackListener listen_on_loopback(const std::string& who, int backlog = 128);

} // namespace wr::test
