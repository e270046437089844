// OpenSSL on the socket's descriptor, one attempt at a time.
#include "net/tls_socket.h"

#include <cerrno>
#include <climits>
#include <stdexcept>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <sys/socket.h>

namespace wr::net {
namespace {

// OpenSSL's socket BIO writes with write(2), which raises SIGPIPE (and so ends the process) when
// the visitor has gone; this one sends with MSG_NOSIGNAL, as Asio's own sockets do, and is
// otherwise OpenSSL's.
int send_without_signal(BIO* bio, const char* data, int size) {
    BIO_clear_retry_flags(bio);
    const auto sent = static_cast<int>(::send(BIO_get_fd(bio, nullptr), data, static_cast<size_t>(size), MSG_NOSIGNAL));
    if (sent <= 0 && BIO_sock_should_retry(sent)) BIO_set_retry_write(bio);
    return sent;
}

BIO_METHOD* socket_method() {
    static BIO_METHOD* const method = [] {
        const BIO_METHOD* base = BIO_s_socket();
        BIO_METHOD* made = BIO_meth_new(BIO_TYPE_SOCKET, "wr socket");
        if (!made) return made;
        BIO_meth_set_write(made, send_without_signal);
        BIO_meth_set_read(made, BIO_meth_get_read(base));
        BIO_meth_set_puts(made, BIO_meth_get_puts(base));
        BIO_meth_set_ctrl(made, BIO_meth_get_ctrl(base));
        BIO_meth_set_create(made, BIO_meth_get_create(base));
        BIO_meth_set_destroy(made, BIO_meth_get_destroy(base));
        return made;
    }();
    return method;
}

} // namespace

TlsSocket::TlsSocket(Socket socket, asio::ssl::context& context) : m_socket(std::move(socket)) {
    // Non-blocking: OpenSSL's reads and writes return when the socket has nothing, and the
    // operation waits for it through Asio's reactor. A blocking one would stall the whole thread,
    // so a socket that cannot be made so is refused (the connection ends; the edge goes on).
    error_code blocking;
    m_socket.non_blocking(true, blocking);
    if (blocking) throw std::runtime_error("cannot make a TLS connection (non-blocking socket: " + blocking.message() + ")");
    m_ssl = SSL_new(context.native_handle());
    if (!m_ssl) throw std::runtime_error("cannot make a TLS connection (SSL_new failed)");
    BIO* bio = socket_method() ? BIO_new(socket_method()) : nullptr;
    if (!bio) {
        SSL_free(m_ssl);
        throw std::runtime_error("cannot make a TLS connection (BIO_new failed)");
    }
    BIO_set_fd(bio, static_cast<int>(m_socket.native_handle()), BIO_NOCLOSE);
    SSL_set_bio(m_ssl, bio, bio); // the SSL owns it now
    SSL_set_accept_state(m_ssl);
    // Partial writes: a write returns once a record is sent. Moving buffers: a retried write may
    // come from another address (gathered again). Released buffers: an idle connection keeps no
    // 34 KB of OpenSSL's. Read-ahead: one recv takes what has arrived, not a header, then a body.
    SSL_set_mode(m_ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    SSL_set_read_ahead(m_ssl, 1);
}

TlsSocket::~TlsSocket() { SSL_free(m_ssl); }

std::array<char, TlsSocket::k_record>& TlsSocket::gather_scratch() {
    thread_local std::array<char, k_record> scratch;
    return scratch;
}

bool TlsSocket::usable(error_code& error) {
    // A watch cancels and shuts the socket down but does not close it; should anything close it,
    // OpenSSL must not touch a descriptor number that another connection may have been given.
    if (m_socket.is_open() && SSL_get_fd(m_ssl) == static_cast<int>(m_socket.native_handle())) return true;
    error = asio::error::bad_descriptor;
    return false;
}

TlsSocket::Step TlsSocket::try_read(asio::mutable_buffer into, size_t& got, error_code& error) {
    if (!usable(error)) return Step::done;
    if (into.size() == 0) return Step::done;
    ERR_clear_error();
    const int size = static_cast<int>(std::min<size_t>(into.size(), INT_MAX));
    const int result = SSL_read(m_ssl, into.data(), size);
    if (result > 0) {
        got = static_cast<size_t>(result);
        return Step::done;
    }
    return outcome(result, errno, error);
}

TlsSocket::Step TlsSocket::try_write(asio::const_buffer from, size_t& put, error_code& error) {
    if (!usable(error)) return Step::done;
    if (from.size() == 0) return Step::done;
    ERR_clear_error();
    const int size = static_cast<int>(std::min<size_t>(from.size(), INT_MAX));
    const int result = SSL_write(m_ssl, from.data(), size);
    if (result > 0) {
        put = static_cast<size_t>(result);
        return Step::done;
    }
    return outcome(result, errno, error);
}

TlsSocket::Step TlsSocket::try_handshake(error_code& error) {
    if (!usable(error)) return Step::done;
    ERR_clear_error();
    const int result = SSL_do_handshake(m_ssl);
    return result == 1 ? Step::done : outcome(result, errno, error);
}

TlsSocket::Step TlsSocket::try_shutdown(error_code& error) {
    if (!usable(error)) return Step::done;
    ERR_clear_error();
    // 0: close_notify sent, the visitor's not yet seen (the next call reads for it); 1: both.
    int result = SSL_shutdown(m_ssl);
    if (result == 0) result = SSL_shutdown(m_ssl);
    if (result == 1) return Step::done;
    return outcome(result, errno, error);
}

TlsSocket::Step TlsSocket::outcome(int result, int error_number, error_code& error) {
    const int kind = SSL_get_error(m_ssl, result);
    switch (kind) {
    case SSL_ERROR_WANT_READ: return Step::want_read;
    case SSL_ERROR_WANT_WRITE: return Step::want_write;
    case SSL_ERROR_ZERO_RETURN: error = asio::error::eof; return Step::done; // the visitor's close_notify
    case SSL_ERROR_SYSCALL:
        if (const unsigned long queued = ERR_get_error()) error = error_code(static_cast<int>(queued), asio::error::get_ssl_category());
        else if (result < 0 && error_number != 0) error = error_code(error_number, asio::error::get_system_category());
        else error = asio::ssl::error::stream_truncated; // the connection ended without close_notify
        return Step::done;
    default: {
        const unsigned long queued = ERR_get_error();
        // OpenSSL 3 reports a connection cut short as an SSL error; it is the same end as above.
        if (ERR_GET_REASON(queued) == SSL_R_UNEXPECTED_EOF_WHILE_READING) error = asio::ssl::error::stream_truncated;
        else if (queued != 0) error = error_code(static_cast<int>(queued), asio::error::get_ssl_category());
        else error = asio::error::connection_aborted;
        return Step::done;
    }
    }
}

} // namespace wr::net
