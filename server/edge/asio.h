#pragma once
// Boost.Asio/Beast as the edge uses them. Boost 1.74's awaitable header uses std::exchange
// without including <utility>, so <utility> comes first (docs/design.md, "Platform traps");
// there is no as_tuple
// yet, so errors come back through redirect_error.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace wr::edge {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// co_await operation(…, awaitable(error)) leaves the error in `error` instead of throwing.
inline auto awaitable(boost::system::error_code& error) { return asio::redirect_error(asio::use_awaitable, error); }

} // namespace wr::edge
