#pragma once
// Why an HTTP client request (cpp-httplib: the CLI, webhooks, the edge's calls to the control
// node) got no answer, in words an operator can act on; the library's own names ("Connection",
// "Read") say which of its steps failed, not what happened.
#include <string>

#include <httplib.h>

namespace wr::net {

std::string client_error_text(httplib::Error error);

} // namespace wr::net
