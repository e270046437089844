// Talks to the control node with cpp-httplib (over TLS for an https URL).
#include "fleet/control_client.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "net/client_error.h"

namespace wr::fleet {
namespace {

// The first message of a v4 error envelope, or the status.
std::string error_message(const std::string& body, int status) {
    const nlohmann::json envelope = nlohmann::json::parse(body, nullptr, false);
    if (envelope.is_object() && envelope.contains("errors") && envelope["errors"].is_array() && !envelope["errors"].empty() &&
        envelope["errors"][0].is_object())
        return envelope["errors"][0].value("message", "the control node answered " + std::to_string(status));
    return "the control node answered " + std::to_string(status);
}

std::string transport_message(httplib::Error error) {
    switch (error) {
    case httplib::Error::SSLServerVerification:
        return "its TLS certificate is not trusted (give its CA with --control-ca-file)";
    default:
        return net::client_error_text(error);
    }
}

} // namespace

ControlClient::ControlClient(ControlOptions options) : m_options(std::move(options)) {
    m_client = std::make_unique<httplib::Client>(m_options.url.text());
    m_client->set_tcp_nodelay(true);
    m_client->set_keep_alive(true);
    m_client->set_connection_timeout(std::chrono::duration_cast<std::chrono::seconds>(m_options.connect_timeout).count(),
                                     static_cast<time_t>(m_options.connect_timeout.count() % 1000 * 1000));
    m_client->set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(m_options.read_timeout).count(),
                               static_cast<time_t>(m_options.read_timeout.count() % 1000 * 1000));
    if (m_options.url.https) {
        m_client->enable_server_certificate_verification(true);
        if (!m_options.ca_file.empty()) m_client->set_ca_cert_path(m_options.ca_file.c_str());
    }
}

ControlClient::~ControlClient() = default;
ControlClient::ControlClient(ControlClient&&) noexcept = default;

ControlClient::Answer ControlClient::exchange(const std::string& method, const std::string& path, const std::string& token,
                                              const std::string& etag, const std::string& body) {
    httplib::Headers headers{{"Authorization", "Bearer " + token}};
    if (!etag.empty()) headers.emplace("If-None-Match", etag);
    const httplib::Result result =
        method == "GET" ? m_client->Get(path.c_str(), headers) : m_client->Post(path.c_str(), headers, body, "application/json");
    Answer answer;
    if (!result) {
        answer.outcome = Outcome::unreachable;
        answer.message = transport_message(result.error());
        return answer;
    }
    answer.status = result->status;
    answer.body = result->body;
    answer.etag = result->get_header_value("ETag");
    if ((result->status >= 200 && result->status < 300) || result->status == 304) {
        answer.outcome = Outcome::ok;
    } else {
        answer.outcome = result->status == 401 || result->status == 403 ? Outcome::refused : Outcome::failed;
        answer.message = error_message(result->body, result->status);
    }
    return answer;
}

ControlClient::Answer ControlClient::fetch_snapshot(const std::string& etag) {
    return exchange("GET", "/client/v4/edge/config", m_options.token, etag, "");
}

ControlClient::Answer ControlClient::push(const std::string& body) {
    return exchange("POST", "/client/v4/edge/analytics", m_options.token, "", body);
}

ControlClient::Answer ControlClient::verify(const std::string& token) {
    return exchange("GET", "/client/v4/user/tokens/verify", token, "", "");
}

} // namespace wr::fleet
