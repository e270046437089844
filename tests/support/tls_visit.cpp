// A blocking TLS client over one socket, for the resumption tests.
#include "support/tls_visit.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace wr::test {

int connect_loopback(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const timeval timeout{5, 0}; // a stuck server fails the test instead of hanging it
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return fd;
    ::close(fd);
    return -1;
}

TlsVisit tls_visit(int port, const std::string& host, const TlsSession* offer, TlsSession* kept, int max_version) {
    TlsVisit visit;
    const int fd = connect_loopback(port);
    if (fd < 0) return visit;
    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    if (max_version) SSL_CTX_set_max_proto_version(context, max_version);
    SSL* ssl = SSL_new(context);
    SSL_set_fd(ssl, fd);
    if (offer && !offer->empty()) SSL_set_session(ssl, offer->get());
    if (SSL_connect(ssl) == 1) {
        const std::string request = "GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
        std::string answer;
        if (SSL_write(ssl, request.data(), static_cast<int>(request.size())) == static_cast<int>(request.size())) {
            // To the end: TLS 1.3 tickets come after the handshake, before or with the answer.
            char buffer[4096];
            int n = 0;
            while ((n = SSL_read(ssl, buffer, sizeof buffer)) > 0) answer.append(buffer, static_cast<size_t>(n));
        }
        visit.status_line = answer.substr(0, answer.find("\r\n"));
        visit.completed = visit.status_line.starts_with("HTTP/1.1 ");
        visit.resumed = SSL_session_reused(ssl) == 1;
        SSL_shutdown(ssl); // a clean close: OpenSSL offers no session again that ended without one
        if (kept) kept->reset(SSL_get1_session(ssl));
    }
    SSL_free(ssl);
    SSL_CTX_free(context);
    ::close(fd);
    return visit;
}

std::string tls_alpn(int port) {
    std::string chosen;
    const int fd = connect_loopback(port);
    if (fd < 0) return chosen;
    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    static constexpr unsigned char k_offer[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(context, k_offer, sizeof k_offer);
    SSL* ssl = SSL_new(context);
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) == 1) {
        const unsigned char* name = nullptr;
        unsigned int size = 0;
        SSL_get0_alpn_selected(ssl, &name, &size);
        if (name) chosen.assign(reinterpret_cast<const char*>(name), size);
    }
    SSL_free(ssl);
    SSL_CTX_free(context);
    ::close(fd);
    return chosen;
}

bool tls_abandon(int port, const std::string& host, bool while_answering) {
    const int fd = connect_loopback(port);
    if (fd < 0) return false;
    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    SSL* ssl = SSL_new(context);
    SSL_set_fd(ssl, fd);
    const bool connected = SSL_connect(ssl) == 1;
    if (connected && while_answering) {
        // Pipelined requests until the server, its answers unread, stops reading them: its
        // writes are then waiting for room when the reset comes.
        std::string pipelined;
        for (int i = 0; i < 100; ++i) pipelined += "GET /page-" + std::to_string(i) + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
        const timeval patience{0, 500 * 1000};
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &patience, sizeof patience);
        for (int sent = 0; sent < 2000; ++sent)
            if (SSL_write(ssl, pipelined.data(), static_cast<int>(pipelined.size())) <= 0) break;
    }
    if (connected && !while_answering) {
        // One request, its answer read: the server waits for the next one when the reset comes.
        const std::string request = "GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
        SSL_write(ssl, request.data(), static_cast<int>(request.size()));
        char answer[16384];
        SSL_read(ssl, answer, sizeof answer);
    }
    const linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    SSL_free(ssl);
    SSL_CTX_free(context);
    ::close(fd);
    return connected;
}

} // namespace wr::test
