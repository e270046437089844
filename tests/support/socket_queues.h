#pragma once
// What the kernel still queues on this process's TCP connections to one port: for tests that
// count how far bytes really got between an in-process edge and an origin.
#include <cstdint>

namespace wr::test {

struct SocketQueues {
    int connections = 0;
    uint64_t unread = 0; // received, not yet read by the process (SIOCINQ)
    uint64_t unsent = 0; // written, not yet acknowledged by the peer (SIOCOUTQ)
};

// Summed over every socket of this process whose peer is 127.0.0.1:`port`.
SocketQueues socket_queues_to(int port);

} // namespace wr::test
