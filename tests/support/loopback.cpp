// A listening socket on 127.0.0.1, on a port the kernel picks.
#include "support/loopback.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace wr::test {

LoopbackListener listen_on_loopback(const std::string& who, int backlog) {
    LoopbackListener listener;
    listener.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener.fd < 0 || ::bind(listener.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener.fd, backlog) != 0) {
        if (listener.fd >= 0) ::close(listener.fd);
        throw std::runtime_error(who + ": cannot listen on 127.0.0.1");
    }
    socklen_t length = sizeof address;
    ::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&address), &length);
    listener.port = ntohs(address.sin_port);
    return listener;
}

} // namespace wr::test
