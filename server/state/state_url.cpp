// Parses --state URLs.
#include "state/state_url.h"

#include <cctype>
#include <optional>
#include <stdexcept>

#include "util/parse_number.h"

namespace wr::state {
namespace {

constexpr const char* k_forms =
    "expected memory, redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], "
    "redis-sentinel://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]…]/MASTER[/DB] or "
    "redis-cluster://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]…]";

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Passwords may carry reserved characters percent-encoded.
std::string percent_decoded(std::string_view text, const char* what) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size() || hex_value(text[i + 1]) < 0 || hex_value(text[i + 2]) < 0)
            throw std::invalid_argument(std::string("a '%' in the ") + what + " must start an escape such as %40");
        out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
        i += 2;
    }
    return out;
}

RedisEndpoint parse_endpoint(std::string_view text, int default_port) {
    RedisEndpoint endpoint;
    endpoint.port = default_port;
    std::string_view host = text;
    std::string_view port;
    if (text.starts_with('[')) {
        const size_t close = text.find(']');
        if (close == std::string_view::npos) throw std::invalid_argument("'" + std::string(text) + "': an IPv6 address needs its closing ']'");
        host = text.substr(1, close - 1);
        const std::string_view rest = text.substr(close + 1);
        if (!rest.empty()) {
            if (!rest.starts_with(':')) throw std::invalid_argument("'" + std::string(text) + "': expected ':PORT' after the address");
            port = rest.substr(1);
            if (port.empty()) throw std::invalid_argument("'" + std::string(text) + "': no port after ':'");
        }
    } else if (const size_t colon = text.rfind(':'); colon != std::string_view::npos) {
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
        if (port.empty()) throw std::invalid_argument("'" + std::string(text) + "': no port after ':'");
    }
    if (host.empty()) throw std::invalid_argument("'" + std::string(text) + "': no host");
    // ':' only inside brackets: "::1" or "h:6379:6380" would otherwise pass as a host ":" or
    // "h:6379" and fail later, at connect, with a message naming neither.
    const bool bracketed = text.starts_with('[');
    if (!bracketed && host.find(':') != std::string_view::npos)
        throw std::invalid_argument("'" + std::string(text) + "': an IPv6 address goes in brackets ([::1]:6379), and a host has one port");
    for (const char c : host)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && (c != ':' || !bracketed) && c != '_')
            throw std::invalid_argument("'" + std::string(host) + "' is not a host name or address");
    endpoint.host = std::string(host);
    if (!port.empty()) {
        const auto number = util::parse_number<int>(port);
        if (!number || *number < 1 || *number > 65535)
            throw std::invalid_argument("'" + std::string(port) + "' is not a port (1 to 65535)");
        endpoint.port = *number;
    }
    return endpoint;
}

int parse_database(std::string_view text) {
    const auto number = util::parse_number<int>(text);
    if (!number || *number < 0 || *number > 1000000)
        throw std::invalid_argument("'" + std::string(text) + "' is not a database number");
    return *number;
}

} // namespace

std::string StateUrl::backend() const {
    switch (kind) {
    case Kind::redis: return "redis";
    case Kind::sentinel: return "redis-sentinel";
    case Kind::cluster: return "redis-cluster";
    case Kind::memory: break;
    }
    return "memory";
}

std::string StateUrl::describe() const {
    const auto endpoint_text = [](const RedisEndpoint& endpoint) {
        const bool v6 = endpoint.host.find(':') != std::string::npos;
        return (v6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + std::to_string(endpoint.port);
    };
    switch (kind) {
    case Kind::memory: return "memory";
    case Kind::redis: return "redis " + endpoint_text(endpoints.front()) + "/" + std::to_string(database);
    case Kind::sentinel: {
        std::string sentinels;
        for (const RedisEndpoint& endpoint : endpoints) sentinels += (sentinels.empty() ? "" : ",") + endpoint_text(endpoint);
        return "redis-sentinel master '" + master_name + "' via " + sentinels + (database ? " db " + std::to_string(database) : "");
    }
    case Kind::cluster: {
        std::string nodes;
        for (const RedisEndpoint& endpoint : endpoints) nodes += (nodes.empty() ? "" : ",") + endpoint_text(endpoint);
        return "redis-cluster via " + nodes;
    }
    }
    return "memory";
}

StateUrl parse_state_url(const std::string& text) {
    StateUrl url;
    if (text == "memory") return url;
    std::string_view rest = text;
    if (rest.starts_with("redis://")) {
        url.kind = StateUrl::Kind::redis;
        rest.remove_prefix(8);
    } else if (rest.starts_with("redis-sentinel://")) {
        url.kind = StateUrl::Kind::sentinel;
        rest.remove_prefix(17);
    } else if (rest.starts_with("redis-cluster://")) {
        url.kind = StateUrl::Kind::cluster;
        rest.remove_prefix(16);
    } else {
        throw std::invalid_argument(std::string(k_forms) + ", not '" + text + "'");
    }
    // Credentials: everything before the last '@' (a password may hold one, percent-encoded or not).
    if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
        const std::string_view credentials = rest.substr(0, at);
        rest.remove_prefix(at + 1);
        const size_t colon = credentials.find(':');
        if (colon == std::string_view::npos) {
            url.password = percent_decoded(credentials, "password"); // redis://secret@host, as redis-cli -u takes it
        } else {
            url.username = percent_decoded(credentials.substr(0, colon), "user name");
            url.password = percent_decoded(credentials.substr(colon + 1), "password");
        }
        if (url.password.empty()) throw std::invalid_argument("an empty password before '@'");
    }
    const size_t slash = rest.find('/');
    const std::string_view hosts = rest.substr(0, slash);
    const std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
    if (hosts.empty()) throw std::invalid_argument("no host in '" + text + "'");

    if (url.kind == StateUrl::Kind::redis) {
        if (hosts.find(',') != std::string_view::npos)
            throw std::invalid_argument("redis:// takes one server; list Sentinels with redis-sentinel://HOST:PORT,HOST:PORT/MASTER");
        url.endpoints.push_back(parse_endpoint(hosts, 6379));
        if (!path.empty()) url.database = parse_database(path);
        return url;
    }
    const bool cluster = url.kind == StateUrl::Kind::cluster;
    size_t start = 0;
    while (start <= hosts.size()) {
        const size_t comma = hosts.find(',', start);
        const std::string_view one = hosts.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (one.empty())
            throw std::invalid_argument(std::string("an empty ") + (cluster ? "Cluster node" : "Sentinel") + " address in '" + std::string(hosts) + "'");
        url.endpoints.push_back(parse_endpoint(one, cluster ? 6379 : 26379));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    if (cluster) {
        // A Cluster serves database 0 alone (SELECT is refused): a path would be a mistake.
        if (slash != std::string_view::npos)
            throw std::invalid_argument("redis-cluster:// takes no /DB or other path (a Redis Cluster has database 0 only), not '/" +
                                        std::string(path) + "'");
        return url;
    }
    const size_t name_end = path.find('/');
    url.master_name = std::string(path.substr(0, name_end));
    if (url.master_name.empty()) throw std::invalid_argument("no master name: redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER");
    for (const char c : url.master_name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
            throw std::invalid_argument("'" + url.master_name + "' is not a master name (letters, digits, '-', '_', '.')");
    if (name_end != std::string_view::npos) url.database = parse_database(path.substr(name_end + 1));
    return url;
}

} // namespace wr::state
