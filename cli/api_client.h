#pragma once
// A typed client of wr's admin API (and Cloudflare's v4 shape): unwraps the envelope, turns
// error envelopes into CliError with the API's own messages, and follows pagination.
#include <nlohmann/json.hpp>
#include <string>

namespace wr::cli {

class ApiClient {
public:
    // ca_file: PEM certificate of a (private) CA to trust for an https:// API; empty: the system's.
    ApiClient(std::string base_url, std::string token, std::string ca_file = "");

    // Each returns the envelope's `result`.
    nlohmann::json get(const std::string& path) const;
    nlohmann::json post(const std::string& path, const nlohmann::json& body) const;
    nlohmann::json put(const std::string& path, const nlohmann::json& body) const;
    nlohmann::json patch(const std::string& path, const nlohmann::json& body) const;
    nlohmann::json del(const std::string& path) const;
    // A body that is not an envelope (CSV, SVG); errors still come back as CliError.
    std::string get_text(const std::string& path) const;
    // Every item of a paginated list, page by page.
    nlohmann::json get_all(const std::string& path) const;

    const std::string& base_url() const { return m_base_url; }

private:
    nlohmann::json send(const std::string& method, const std::string& path, const nlohmann::json* body) const;

    std::string m_base_url;
    std::string m_token;
    std::string m_ca_file;
};

} // namespace wr::cli
