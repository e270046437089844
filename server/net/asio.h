#pragma once
// Boost.Asio/Beast as wr's network code uses them. Boost 1.74's awaitable header uses std::exchange
// without including <utility>, so <utility> comes first (docs/design.md, "Platform traps");
// there is no as_tuple yet, so errors come back through redirect_error.
//
// The data path names its executor concretely (io_context::executor_type) rather than through
// the type-erased any_io_executor: every socket, timer and coroutine of an edge thread runs on
// that thread's io_context, and the erased executor's copies and indirect calls showed in
// profiles of the hot path.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

// The library's names, for every part of wr that does network I/O (net/, origin/, edge/).
namespace wr {
namespace asio = boost::asio;
using tcp = boost::asio::ip::tcp;
using error_code = boost::system::error_code;
} // namespace wr

namespace wr::net {

using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Acceptor = asio::basic_socket_acceptor<tcp, Executor>;
using Timer = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>, Executor>;
using TlsStream = asio::ssl::stream<Socket>;
using DnsResolver = asio::ip::basic_resolver<tcp, Executor>;

// A coroutine on a network thread.
template <typename T = void> using Task = asio::awaitable<T, Executor>;
inline constexpr asio::use_awaitable_t<Executor> use_task{};

// co_await operation(…, awaitable(error)) leaves the error in `error` instead of throwing.
inline auto awaitable(error_code& error) { return asio::redirect_error(use_task, error); }

// The TCP socket under a stream.
inline Socket& lowest_layer(Socket& socket) { return socket; }
inline Socket& lowest_layer(TlsStream& stream) { return stream.next_layer(); }

} // namespace wr::net
