// Posts a delivery with cpp-httplib.
#include "notify/webhook_client.h"

#include <httplib.h>

#include "model/origin_url.h"

namespace wr::notify {

PostOutcome post_webhook(const std::string& url, const Headers& headers, const std::string& body, std::chrono::milliseconds timeout) {
    const std::optional<model::OriginUrl> target = model::parse_origin_url(url);
    if (!target) return {std::nullopt, "not an http(s) URL"};
    const std::string base = std::string(target->https ? "https://" : "http://") +
                             (target->host.find(':') != std::string::npos ? "[" + target->host + "]" : target->host) + ":" +
                             std::to_string(target->port);
    httplib::Client client(base);
    client.set_tcp_nodelay(true);
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const auto microseconds = std::chrono::duration_cast<std::chrono::microseconds>(timeout - seconds);
    client.set_connection_timeout(seconds.count(), microseconds.count());
    client.set_read_timeout(seconds.count(), microseconds.count());
    client.set_write_timeout(seconds.count(), microseconds.count());
    if (target->https) client.enable_server_certificate_verification(true);
    httplib::Headers sent;
    for (const auto& [name, value] : headers) sent.emplace(name, value);
    const std::string path = target->path_prefix.empty() ? "/" : target->path_prefix;
    const httplib::Result result = client.Post(path.c_str(), sent, body, "application/json");
    if (!result) return {std::nullopt, "no answer: " + httplib::to_string(result.error())};
    PostOutcome outcome{result->status, ""};
    if (!outcome.delivered()) outcome.error = "the receiver answered " + std::to_string(result->status);
    return outcome;
}

} // namespace wr::notify
