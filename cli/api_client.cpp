// Talks HTTP to the admin API with cpp-httplib.
#include "api_client.h"

#include <httplib.h>

#include "context.h"

namespace wr::cli {

ApiClient::ApiClient(std::string base_url, std::string token) : m_base_url(std::move(base_url)), m_token(std::move(token)) {
    while (!m_base_url.empty() && m_base_url.back() == '/') m_base_url.pop_back();
}

std::string path_segment(const std::string& text) {
    static constexpr char k_hex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += k_hex[c >> 4];
            out += k_hex[c & 0xf];
        }
    }
    return out;
}

nlohmann::json ApiClient::send(const std::string& method, const std::string& path, const nlohmann::json* body) const {
    httplib::Client client(m_base_url);
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(5);
    client.set_read_timeout(60);
    httplib::Headers headers;
    if (!m_token.empty()) headers.emplace("Authorization", "Bearer " + m_token);
    const std::string payload = body ? body->dump() : "";
    httplib::Result result = method == "GET"    ? client.Get(path.c_str(), headers)
                             : method == "POST" ? client.Post(path.c_str(), headers, payload, "application/json")
                             : method == "PUT"  ? client.Put(path.c_str(), headers, payload, "application/json")
                             : method == "PATCH" ? client.Patch(path.c_str(), headers, payload, "application/json")
                                                 : client.Delete(path.c_str(), headers);
    if (!result)
        throw CliError("cannot reach the admin API at " + m_base_url + " (" + httplib::to_string(result.error()) +
                       "); is `wr serve` running? Use --api or WR_API_URL to point elsewhere");
    const nlohmann::json envelope = nlohmann::json::parse(result->body, nullptr, false);
    if (envelope.is_discarded() || !envelope.is_object())
        throw CliError("the admin API answered " + std::to_string(result->status) + " with a body that is not JSON");
    if (result->status >= 400 || !envelope.value("success", false)) {
        std::string message;
        for (const auto& error : envelope.value("errors", nlohmann::json::array())) {
            if (!message.empty()) message += "\n  ";
            message += error.value("message", "unknown error");
        }
        if (message.empty()) message = "the admin API answered " + std::to_string(result->status);
        throw CliError(message);
    }
    return envelope.value("result", nlohmann::json());
}

nlohmann::json ApiClient::get(const std::string& path) const { return send("GET", path, nullptr); }

std::string ApiClient::get_text(const std::string& path) const {
    httplib::Client client(m_base_url);
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(5);
    client.set_read_timeout(60);
    httplib::Headers headers;
    if (!m_token.empty()) headers.emplace("Authorization", "Bearer " + m_token);
    const httplib::Result result = client.Get(path.c_str(), headers);
    if (!result)
        throw CliError("cannot reach the admin API at " + m_base_url + " (" + httplib::to_string(result.error()) +
                       "); is `wr serve` running? Use --api or WR_API_URL to point elsewhere");
    if (result->status >= 400) {
        const nlohmann::json envelope = nlohmann::json::parse(result->body, nullptr, false);
        if (envelope.is_object() && envelope.contains("errors") && !envelope["errors"].empty())
            throw CliError(envelope["errors"][0].value("message", "the admin API answered " + std::to_string(result->status)));
        throw CliError("the admin API answered " + std::to_string(result->status));
    }
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
