// The edge's TLS stream against a blocking OpenSSL client on loopback: what it writes arrives
// whole, a head and its page go as one record, a large write as many, and a visitor that went
// away ends the write with an error.
#include <doctest/doctest.h>

#include <array>
#include <openssl/ssl.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "net/tls_socket.h"
#include "support/temp_dir.h"
#include "support/tls_files.h"
#include "support/tls_visit.h"

namespace {

using wr::error_code;
namespace asio = wr::asio;
namespace net = wr::net;

// A blocking TLS client on 127.0.0.1:port: the plaintext of each SSL_read (at most one record
// each), until the server closes.
std::vector<std::string> read_records(int port, bool leave_at_once) {
    std::vector<std::string> records;
    const int fd = wr::test::connect_loopback(port);
    REQUIRE(fd >= 0);
    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    SSL* ssl = SSL_new(context);
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) == 1 && !leave_at_once) {
        std::array<char, 65536> buffer{};
        int got = 0;
        while ((got = SSL_read(ssl, buffer.data(), static_cast<int>(buffer.size()))) > 0)
            records.emplace_back(buffer.data(), static_cast<size_t>(got));
    }
    if (leave_at_once) {
        const linger reset{1, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    }
    SSL_free(ssl);
    SSL_CTX_free(context);
    ::close(fd);
    return records;
}

// Accepts one connection, shakes hands, and runs `serve` on it (then sends close_notify).
template <typename Serve> void serve_one(asio::io_context& io, net::Acceptor& acceptor, asio::ssl::context& tls, Serve serve) {
    asio::co_spawn(
        io,
        [&acceptor, &tls, serve]() -> net::Task<> { // serve_one returns before it runs: `serve` is copied
            error_code ec;
            net::Socket socket = co_await acceptor.async_accept(net::awaitable(ec));
            if (ec) co_return;
            net::TlsSocket stream(std::move(socket), tls);
            co_await stream.async_handshake(asio::ssl::stream_base::server, net::awaitable(ec));
            if (ec) co_return;
            co_await serve(stream);
            co_await stream.async_shutdown(net::awaitable(ec));
        },
        asio::detached);
}

struct TlsPairFixture {
    wr::test::TempDir directory;
    asio::io_context io;
    asio::ssl::context tls{asio::ssl::context::tls_server};
    net::Acceptor acceptor{io.get_executor(), wr::tcp::endpoint(asio::ip::address_v4::loopback(), 0)};
    int port = acceptor.local_endpoint().port();
    TlsPairFixture() {
        const wr::test::TlsFiles files = wr::test::write_self_signed_certificate(directory.path());
        tls.use_certificate_chain_file(files.certificate.string());
        tls.use_private_key_file(files.private_key.string(), asio::ssl::context::pem);
    }
};

} // namespace

TEST_CASE("tls socket: a head and its page go as one record; a large write as many, all of it arriving") {
    TlsPairFixture fixture;
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n";
    const std::string page(3000, 'p');
    const std::string large(100 * 1024, 'L');
    serve_one(fixture.io, fixture.acceptor, fixture.tls, [&](net::TlsSocket& stream) -> net::Task<> {
        error_code ec;
        const std::array<asio::const_buffer, 2> answer{asio::buffer(head), asio::buffer(page)};
        co_await asio::async_write(stream, answer, net::awaitable(ec));
        REQUIRE_FALSE(ec);
        co_await asio::async_write(stream, asio::buffer(large), net::awaitable(ec));
        REQUIRE_FALSE(ec);
    });
    std::vector<std::string> records;
    std::thread client([&] { records = read_records(fixture.port, false); });
    fixture.io.run();
    client.join();
    REQUIRE(records.size() >= 2);
    CHECK(records[0] == head + page); // gathered: one record, not the head alone
    std::string rest;
    for (size_t i = 1; i < records.size(); ++i) rest += records[i];
    CHECK(rest == large);
    CHECK(records.size() >= 1 + large.size() / (16 * 1024)); // records of at most 16 KiB
}

TEST_CASE("tls socket: writing to a visitor that reset its connection ends the write with an error") {
    // The test binary ignores SIGPIPE (tests/main.cpp), so this checks the error only; that no
    // signal is raised is the integration test's ("visitors that reset their connections"), which
    // runs wr with SIGPIPE's default.
    TlsPairFixture fixture;
    error_code write_error;
    size_t written = 0;
    serve_one(fixture.io, fixture.acceptor, fixture.tls, [&](net::TlsSocket& stream) -> net::Task<> {
        const std::string chunk(64 * 1024, 'x');
        net::Timer pause(stream.get_executor());
        pause.expires_after(std::chrono::milliseconds{100}); // the client has reset by then
        error_code ignored;
        co_await pause.async_wait(net::awaitable(ignored));
        while (!write_error && written < 64 * 1024 * 1024) written += co_await asio::async_write(stream, asio::buffer(chunk), net::awaitable(write_error));
    });
    std::thread client([&] { read_records(fixture.port, true); });
    fixture.io.run();
    client.join();
    CHECK(write_error);
    CHECK(written < 64 * 1024 * 1024);
}
