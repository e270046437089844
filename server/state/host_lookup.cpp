// A host name looked up on a thread of its own, waited for at most a time limit.
#include "state/host_lookup.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <future>
#include <memory>
#include <thread>

namespace wr::state {
namespace {

bool numeric(const std::string& host) {
    in6_addr v6{};
    in_addr v4{};
    return ::inet_pton(AF_INET, host.c_str(), &v4) == 1 || ::inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

} // namespace

std::vector<std::string> system_lookup(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* results = nullptr;
    if (::getaddrinfo(host.c_str(), nullptr, &hints, &results) != 0) return {};
    std::vector<std::string> addresses;
    for (const addrinfo* result = results; result; result = result->ai_next) {
        char text[INET6_ADDRSTRLEN] = {};
        const void* address = result->ai_family == AF_INET ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(result->ai_addr)->sin_addr)
                                                            : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(result->ai_addr)->sin6_addr);
        if ((result->ai_family == AF_INET || result->ai_family == AF_INET6) && ::inet_ntop(result->ai_family, address, text, sizeof text))
            addresses.emplace_back(text);
    }
    ::freeaddrinfo(results);
    return addresses;
}

std::optional<std::vector<std::string>> addresses_within(const std::string& host, util::Milliseconds limit, const HostLookup& lookup) {
    if (numeric(host)) return std::vector<std::string>{host};
    // The promise lives with the thread, which may outlast this call (a lookup past the limit).
    auto answer = std::make_shared<std::promise<std::vector<std::string>>>();
    std::future<std::vector<std::string>> future = answer->get_future();
    std::thread([answer, host, lookup] {
        try {
            answer->set_value(lookup(host));
        } catch (...) {
            answer->set_value({});
        }
    }).detach();
    if (future.wait_for(limit) != std::future_status::ready) return std::nullopt;
    return future.get();
}

} // namespace wr::state
