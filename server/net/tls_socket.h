#pragma once
// A server's TLS connection on which OpenSSL reads and writes the socket itself, as nginx and
// HAProxy have it, rather than through a pair of memory buffers as Asio's ssl::stream does: that
// stream copies every byte once more each way (socket → its buffer → OpenSSL, and back) and runs
// a state machine of its own around each record, which showed as the largest cost of wr's answers
// over TLS after the answers themselves. The interface is the part of ssl::stream the edge uses
// (async_read_some, async_write_some, async_handshake, async_shutdown, next_layer,
// native_handle), so connection code is written once for it and for a plain socket.
//
// An operation tries OpenSSL at once and waits for the socket only when OpenSSL asks to (it wants
// to read or to write); one that finishes without waiting completes through the executor, as a
// socket's own operations do, so loops of them never nest. One read and one write may be under
// way at a time, as with any Asio stream; OpenSSL is only ever called on the connection's thread.
#include <array>
#include <cstddef>

#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>
#include <openssl/ssl.h>

#include "net/asio.h"

namespace wr::net {

class TlsSocket {
public:
    using executor_type = Executor;
    using next_layer_type = Socket;

    // Takes the accepted socket; the connection's OpenSSL state comes from `context` (held by the
    // caller for the connection's life). Throws if OpenSSL cannot make it.
    TlsSocket(Socket socket, asio::ssl::context& context);
    ~TlsSocket();
    TlsSocket(const TlsSocket&) = delete;
    TlsSocket& operator=(const TlsSocket&) = delete;

    executor_type get_executor() { return m_socket.get_executor(); }
    Socket& next_layer() { return m_socket; }
    SSL* native_handle() { return m_ssl; }

    // What an attempt came to: finished (with an error or not), or OpenSSL waits for the socket.
    enum class Step { done, want_read, want_write };

    // Single attempts, without waiting; the operations below repeat them as the socket allows.
    Step try_read(asio::mutable_buffer into, size_t& got, error_code& error);
    Step try_write(asio::const_buffer from, size_t& put, error_code& error);
    Step try_handshake(error_code& error);
    Step try_shutdown(error_code& error);

    template <typename MutableBuffers, typename Token> auto async_read_some(const MutableBuffers& buffers, Token&& token) {
        const asio::mutable_buffer into = first_of(buffers);
        const auto read = [this, into](size_t& bytes, error_code& error) { return try_read(into, bytes, error); };
        return asio::async_compose<Token, void(error_code, size_t)>(
            Operation<true, decltype(read)>{*this, read}, token, m_socket);
    }

    // Writes at least one record of `buffers`. Several small buffers (a head and its page) are
    // gathered into one record: one encryption and one system call rather than one per buffer.
    template <typename ConstBuffers, typename Token> auto async_write_some(const ConstBuffers& buffers, Token&& token) {
        const auto write = [this, buffers](size_t& bytes, error_code& error) { return try_write(gathered(buffers), bytes, error); };
        return asio::async_compose<Token, void(error_code, size_t)>(Operation<true, decltype(write)>{*this, write}, token, m_socket);
    }

    template <typename Token> auto async_handshake(asio::ssl::stream_base::handshake_type, Token&& token) {
        const auto handshake = [this](size_t&, error_code& error) { return try_handshake(error); };
        return asio::async_compose<Token, void(error_code)>(Operation<false, decltype(handshake)>{*this, handshake}, token, m_socket);
    }

    // Sends close_notify and waits for the visitor's (or its end of the connection), as
    // ssl::stream does; the caller bounds the wait.
    template <typename Token> auto async_shutdown(Token&& token) {
        const auto shutdown = [this](size_t&, error_code& error) { return try_shutdown(error); };
        return asio::async_compose<Token, void(error_code)>(Operation<false, decltype(shutdown)>{*this, shutdown}, token, m_socket);
    }

private:
    // Repeats `attempt` until it is done, waiting for the socket between tries; completes with
    // the bytes moved when `k_bytes` (reads and writes), else with the error alone.
    template <bool k_bytes, typename Attempt> struct Operation {
        TlsSocket& tls;
        Attempt attempt;
        bool waited = false;

        template <typename Self> void operator()(Self& self, error_code wait_error = {}) {
            size_t bytes = 0;
            error_code error = wait_error;
            Step step = Step::done;
            if (!error) step = attempt(bytes, error);
            if (step != Step::done) {
                waited = true;
                tls.m_socket.async_wait(step == Step::want_read ? Socket::wait_read : Socket::wait_write, std::move(self));
                return;
            }
            if (waited) return finish(self, error, bytes);
            asio::post(tls.get_executor(), [self = std::move(self), error, bytes]() mutable { finish(self, error, bytes); });
        }

        template <typename Self> static void finish(Self& self, error_code error, size_t bytes) {
            if constexpr (k_bytes) self.complete(error, bytes);
            else self.complete(error);
        }
    };

    template <typename Buffers> static asio::mutable_buffer first_of(const Buffers& buffers) {
        for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it)
            if (asio::buffer_size(*it) > 0) return *it;
        return {};
    }

    // The bytes of the next record: the first non-empty buffer, or the buffers copied together
    // when there are several and they fit one record. A retried write gathers the same bytes
    // again (OpenSSL allows the buffer to move: SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER).
    template <typename Buffers> static asio::const_buffer gathered(const Buffers& buffers) {
        asio::const_buffer first;
        size_t total = 0, pieces = 0;
        for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it) {
            const asio::const_buffer piece(*it);
            if (piece.size() == 0) continue;
            if (pieces++ == 0) first = piece;
            total += piece.size();
        }
        if (pieces < 2 || total > k_record) return first;
        std::array<char, k_record>& scratch = gather_scratch();
        size_t at = 0;
        for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it)
            at += asio::buffer_copy(asio::buffer(scratch.data() + at, k_record - at), asio::const_buffer(*it));
        return asio::buffer(scratch.data(), at);
    }

    static constexpr size_t k_record = 16 * 1024; // TLS's largest record
    static std::array<char, k_record>& gather_scratch();
    // Maps what OpenSSL said of a call that returned `result` (errno as it was just after it).
    Step outcome(int result, int error_number, error_code& error);
    // Whether the socket is still open: OpenSSL holds its descriptor, which must not outlive it.
    bool usable(error_code& error);

    Socket m_socket;
    SSL* m_ssl = nullptr;
};

inline Socket& lowest_layer(TlsSocket& stream) { return stream.next_layer(); }

} // namespace wr::net
