// The kernel's floor for one answered request on this machine: an epoll server that does no work
// of its own. It reads each request and answers it with the same bytes every time (a file holding
// a whole response, head and body, such as wr's queue page): level-triggered, one recv and one
// send per request and an epoll_wait shared by all that are ready, the fewest system calls a
// server can make per request. What it costs in CPU per request is what any server pays the kernel for
// loopback TCP here; make bench prints it beside wr's CPU per queue page, so that the part that
// is wr's own can be read off.
//   wr_bench_floor PORT RESPONSE_FILE
#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view k_head_end = "\r\n\r\n";

// How many request heads end in `received`, given the tail of the previous read (a head's end
// may straddle two reads). Requests without bodies, as wrk sends them.
size_t heads_ended(std::string_view received, std::string& tail) {
    std::string joined = tail;
    joined.append(received);
    size_t count = 0;
    for (size_t at = joined.find(k_head_end); at != std::string::npos; at = joined.find(k_head_end, at + k_head_end.size())) ++count;
    tail = joined.substr(joined.size() >= 3 ? joined.size() - 3 : 0);
    return count;
}

bool send_all(int fd, const std::string& response) {
    size_t sent = 0;
    while (sent < response.size()) {
        const ssize_t n = send(fd, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<size_t>(n);
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            usleep(50); // a full send buffer: rare with requests this small
        } else {
            return false;
        }
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: wr_bench_floor PORT RESPONSE_FILE\n";
        return 2;
    }
    std::ifstream file(argv[2], std::ios::binary);
    const std::string response((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (response.empty()) {
        std::cerr << "wr_bench_floor: " << argv[2] << " is empty or unreadable\n";
        return 1;
    }
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    const int on = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(std::stoi(argv[1])));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(listener, 4096) != 0) {
        std::perror("wr_bench_floor: listen");
        return 1;
    }
    const int poller = epoll_create1(0);
    epoll_event listening{.events = EPOLLIN, .data = {.fd = listener}};
    epoll_ctl(poller, EPOLL_CTL_ADD, listener, &listening);
    std::array<epoll_event, 512> ready{};
    std::array<char, 16384> buffer{};
    std::vector<std::string> tails(65536);
    while (true) {
        const int count = epoll_wait(poller, ready.data(), static_cast<int>(ready.size()), -1);
        for (int i = 0; i < count; ++i) {
            const int fd = ready[static_cast<size_t>(i)].data.fd;
            if (fd == listener) {
                for (int client; (client = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK)) >= 0;) {
                    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
                    epoll_event event{.events = EPOLLIN, .data = {.fd = client}};
                    epoll_ctl(poller, EPOLL_CTL_ADD, client, &event);
                    if (static_cast<size_t>(client) < tails.size()) tails[static_cast<size_t>(client)].clear();
                }
                continue;
            }
            // Level-triggered: one read per wake-up; what is left wakes the next epoll_wait.
            const ssize_t received = recv(fd, buffer.data(), buffer.size(), 0);
            if (received <= 0) {
                if (received == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) close(fd);
                continue;
            }
            std::string scratch;
            std::string& tail = static_cast<size_t>(fd) < tails.size() ? tails[static_cast<size_t>(fd)] : scratch;
            bool open = true;
            for (size_t n = heads_ended(std::string_view(buffer.data(), static_cast<size_t>(received)), tail); n > 0 && open; --n)
                open = send_all(fd, response);
            if (!open) close(fd);
        }
    }
}
