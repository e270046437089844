// Talks HTTP to the admin API with cpp-httplib.
#include "api_client.h"

#include <httplib.h>

#include "context.h"
#include "net/client_error.h"

namespace wr::cli {

ApiClient::ApiClient(std::string base_url, std::string token, std::string ca_file)
    : m_base_url(std::move(base_url)), m_token(std::move(token)), m_ca_file(std::move(ca_file)) {
    while (!m_base_url.empty() && m_base_url.back() == '/') m_base_url.pop_back();
}

namespace {

// Why a request got no answer, and what to do about it.
std::string unreachable_message(const std::string& base_url, httplib::Error error) {
    if (error == httplib::Error::SSLServerVerification)
        return "the admin API at " + base_url + " shows a certificate this machine does not trust; give its CA with --api-ca-file "
               "(or WR_API_CA_FILE)";
    if (error == httplib::Error::SSLConnection)
        return "cannot open a TLS connection to the admin API at " + base_url + "; does it serve HTTPS (--admin-tls-cert)?";
    return "cannot reach the admin API at " + base_url + " (" + net::client_error_text(error) +
           "); is `wr serve` running? Use --api or WR_API_URL to point elsewhere";
}

// One request to the admin API, with the token; an unreachable API is a CliError that says what to do.
httplib::Result exchange(const std::string& base_url, const std::string& token, const std::string& ca_file, const std::string& method,
                         const std::string& path, const std::string& payload) {
    httplib::Client client(base_url);
    if (base_url.starts_with("https://")) {
        client.enable_server_certificate_verification(true);
        if (!ca_file.empty()) client.set_ca_cert_path(ca_file.c_str());
    }
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(5);
    client.set_read_timeout(60);
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    headers.emplace("X-Wr-Client", "cli"); // the audit log says which tool made a change
    httplib::Result result = method == "GET"    ? client.Get(path.c_str(), headers)
                             : method == "POST" ? client.Post(path.c_str(), headers, payload, "application/json")
                             : method == "PUT"  ? client.Put(path.c_str(), headers, payload, "application/json")
                             : method == "PATCH" ? client.Patch(path.c_str(), headers, payload, "application/json")
                                                 : client.Delete(path.c_str(), headers);
    if (!result) throw CliError(unreachable_message(base_url, result.error()));
    return result;
}

// The envelope's error messages, or what the status says.
ApiError api_error(const nlohmann::json& envelope, int status) {
    std::vector<std::string> messages;
    if (envelope.is_object())
        for (const auto& error : envelope.value("errors", nlohmann::json::array())) messages.push_back(error.value("message", "unknown error"));
    if (messages.empty()) messages.push_back("the admin API answered " + std::to_string(status));
    return ApiError(std::move(messages));
}

std::string joined(const std::vector<std::string>& messages) {
    std::string text;
    for (const std::string& message : messages) text += (text.empty() ? "" : "\n  ") + message;
    return text;
}

} // namespace

ApiError::ApiError(std::vector<std::string> messages) : CliError(joined(messages)), m_messages(std::move(messages)) {}

ApiError ApiError::naming_flags(const std::map<std::string, std::string>& flags) const {
    std::vector<std::string> renamed;
    for (const std::string& message : m_messages) {
        const size_t colon = message.find(": ");
        const auto flag = colon == std::string::npos ? flags.end() : flags.find(message.substr(0, colon));
        if (flag == flags.end()) {
            renamed.push_back(message);
            continue;
        }
        // "--host is required" reads as a sentence; "--expression: unknown field …" needs the colon.
        const std::string rest = message.substr(colon + 2);
        renamed.push_back(flag->second + (rest.starts_with("is ") || rest.starts_with("must ") ? " " : ": ") + rest);
    }
    return ApiError(std::move(renamed));
}

nlohmann::json ApiClient::send(const std::string& method, const std::string& path, const nlohmann::json* body) const {
    const httplib::Result result = exchange(m_base_url, m_token, m_ca_file, method, path, body ? body->dump() : "");
    const nlohmann::json envelope = nlohmann::json::parse(result->body, nullptr, false);
    if (envelope.is_discarded() || !envelope.is_object())
        throw CliError("the admin API answered " + std::to_string(result->status) + " with a body that is not JSON");
    if (result->status >= 400 || !envelope.value("success", false)) throw api_error(envelope, result->status);
    return envelope.value("result", nlohmann::json());
}

nlohmann::json ApiClient::get(const std::string& path) const { return send("GET", path, nullptr); }

std::string ApiClient::get_text(const std::string& path) const {
    const httplib::Result result = exchange(m_base_url, m_token, m_ca_file, "GET", path, "");
    if (result->status >= 400) throw api_error(nlohmann::json::parse(result->body, nullptr, false), result->status);
    return result->body;
}
nlohmann::json ApiClient::post(const std::string& path, const nlohmann::json& body) const { return send("POST", path, &body); }
nlohmann::json ApiClient::put(const std::string& path, const nlohmann::json& body) const { return send("PUT", path, &body); }
nlohmann::json ApiClient::patch(const std::string& path, const nlohmann::json& body) const { return send("PATCH", path, &body); }
nlohmann::json ApiClient::del(const std::string& path) const { return send("DELETE", path, nullptr); }

nlohmann::json ApiClient::get_all(const std::string& path) const {
    nlohmann::json all = nlohmann::json::array();
    const char separator = path.find('?') == std::string::npos ? '?' : '&';
    for (int page = 1;; ++page) {
        const nlohmann::json items = get(path + separator + "per_page=1000&page=" + std::to_string(page));
        if (!items.is_array() || items.empty()) break;
        for (const auto& item : items) all.push_back(item);
        if (items.size() < 1000) break;
    }
    return all;
}

} // namespace wr::cli
