#include "net/client_error.h"

namespace wr::net {

std::string client_error_text(httplib::Error error) {
    switch (error) {
    case httplib::Error::Connection: return "connection refused or failed";
    case httplib::Error::ConnectionTimeout: return "no connection within the timeout";
    case httplib::Error::Read: return "the connection closed or went silent before an answer";
    case httplib::Error::Write: return "the connection closed while the request was sent";
    case httplib::Error::SSLConnection: return "the TLS handshake failed (is it serving HTTPS?)";
    case httplib::Error::SSLServerVerification: return "its TLS certificate is not trusted";
    case httplib::Error::SSLLoadingCerts: return "the trusted certificates could not be loaded";
    default: return httplib::to_string(error);
    }
}

} // namespace wr::net
