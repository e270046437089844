#include "support/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

namespace wr::test {

std::string RawReply::header(const std::string& name) const {
    size_t at = head.find("\r\n");
    while (at != std::string::npos && at + 2 < head.size()) {
        const size_t end = head.find("\r\n", at + 2);
        const std::string line = head.substr(at + 2, end == std::string::npos ? std::string::npos : end - at - 2);
        const size_t colon = line.find(':');
        if (colon == name.size() && strncasecmp(line.c_str(), name.c_str(), name.size()) == 0) {
            size_t start = colon + 1;
            while (start < line.size() && line[start] == ' ') ++start;
            return line.substr(start);
        }
        at = end;
    }
    return "";
}

RawReply raw_exchange(int port, const std::string& bytes, std::chrono::milliseconds timeout) {
    RawReply reply;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return reply;
    }
    for (size_t sent = 0; sent < bytes.size();) {
        const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string received;
    size_t body_start = std::string::npos;
    size_t length = 0;
    while (true) {
        if (body_start == std::string::npos && (body_start = received.find("\r\n\r\n")) != std::string::npos) {
            body_start += 4;
            reply.head = received.substr(0, body_start - 4);
            if (reply.head.size() > 12) reply.status = std::stoi(reply.head.substr(9, 3));
            const std::string content_length = reply.header("Content-Length");
            length = content_length.empty() ? 0 : std::stoul(content_length);
        }
        if (body_start != std::string::npos && received.size() >= body_start + length) {
            reply.body = received.substr(body_start, length);
            // Closed means: nothing more, and the peer's FIN arrives promptly.
            pollfd wait{fd, POLLIN, 0};
            char probe;
            reply.closed = ::poll(&wait, 1, 500) == 1 && ::recv(fd, &probe, 1, MSG_DONTWAIT) == 0;
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd wait{fd, POLLIN, 0};
        if (left.count() <= 0 || ::poll(&wait, 1, static_cast<int>(left.count())) != 1) {
            reply.status = body_start == std::string::npos ? 0 : reply.status;
            break;
        }
        char chunk[16384];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
            reply.closed = true;
            if (body_start == std::string::npos) reply.status = 0;
            else reply.body = received.substr(body_start);
            break;
        }
        received.append(chunk, static_cast<size_t>(n));
    }
    ::close(fd);
    return reply;
}

} // namespace wr::test
