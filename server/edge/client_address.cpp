// The client address behind trusted proxies.
#include "edge/client_address.h"

#include <arpa/inet.h>
#include <stdexcept>

#include "expr/evaluate.h"
#include "expr/parser.h"
#include "util/trim.h"

namespace wr::edge {
namespace {

// X-Forwarded-For entries are bare addresses, though some proxies write "[v6]" or "v4:port".
std::optional<queue::ClientAddress> parse_entry(std::string_view entry) {
    entry = util::trim_blanks(entry);
    if (entry.size() > 2 && entry.front() == '[') {
        const size_t close = entry.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        entry = entry.substr(1, close - 1);
    } else if (const size_t colon = entry.find(':'); colon != std::string_view::npos && entry.find(':', colon + 1) == std::string_view::npos) {
        entry = entry.substr(0, colon); // one colon: IPv4 with a port
    }
    queue::ClientAddress address{};
    if (!expr::parse_ip_address(entry, address)) return std::nullopt;
    return address;
}

} // namespace

TrustedProxies TrustedProxies::parse(const std::vector<std::string>& networks) {
    TrustedProxies trusted;
    for (const std::string& text : networks) {
        const auto network = expr::parse_ip_network(text);
        if (!network) throw std::invalid_argument("--trusted-proxy: '" + text + "' is not an IP address or CIDR network");
        trusted.m_networks.push_back(*network);
    }
    return trusted;
}

bool TrustedProxies::contains(const queue::ClientAddress& address) const {
    for (const expr::IpNetwork& network : m_networks)
        if (network.contains(address)) return true;
    return false;
}

queue::ClientAddress client_address(const queue::ClientAddress& peer, std::string_view forwarded_for,
                                    const TrustedProxies& trusted) {
    if (trusted.empty() || !trusted.contains(peer)) return peer;
    queue::ClientAddress client = peer;
    while (!forwarded_for.empty()) {
        const size_t comma = forwarded_for.rfind(',');
        const std::string_view entry = comma == std::string_view::npos ? forwarded_for : forwarded_for.substr(comma + 1);
        forwarded_for = comma == std::string_view::npos ? std::string_view{} : forwarded_for.substr(0, comma);
        if (util::trim_blanks(entry).empty()) continue;
        const auto address = parse_entry(entry);
        if (!address) break;
        client = *address;
        if (!trusted.contains(client)) break;
    }
    return client;
}

bool is_v4_mapped(const queue::ClientAddress& address) {
    static constexpr uint8_t k_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return std::equal(std::begin(k_mapped_prefix), std::end(k_mapped_prefix), address.begin());
}

std::string address_text(const queue::ClientAddress& address) {
    char buffer[INET6_ADDRSTRLEN] = {};
    if (is_v4_mapped(address))
        inet_ntop(AF_INET, address.data() + 12, buffer, sizeof buffer);
    else
        inet_ntop(AF_INET6, address.data(), buffer, sizeof buffer);
    return buffer;
}

} // namespace wr::edge
