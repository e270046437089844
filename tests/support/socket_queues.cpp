// Reads the kernel's queues of this process's sockets, found through /proc/self/fd.
#include "support/socket_queues.h"

#include <arpa/inet.h>
#include <filesystem>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/socket.h>

namespace wr::test {

SocketQueues socket_queues_to(int port) {
    SocketQueues queues;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
        const std::filesystem::path target = std::filesystem::read_symlink(entry.path(), ec);
        if (ec || !target.string().starts_with("socket:")) continue;
        const int fd = std::stoi(entry.path().filename().string());
        sockaddr_in peer{};
        socklen_t size = sizeof peer;
        if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0 || peer.sin_family != AF_INET) continue;
        if (ntohs(peer.sin_port) != port || peer.sin_addr.s_addr != htonl(INADDR_LOOPBACK)) continue;
        int unread = 0;
        int unsent = 0;
        if (::ioctl(fd, SIOCINQ, &unread) != 0 || ::ioctl(fd, SIOCOUTQ, &unsent) != 0) continue;
        ++queues.connections;
        queues.unread += static_cast<uint64_t>(unread);
        queues.unsent += static_cast<uint64_t>(unsent);
    }
    return queues;
}

} // namespace wr::test
