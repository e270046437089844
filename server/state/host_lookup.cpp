// A host name looked up on a thread of its own, waited for at most a time limit.
#include "state/host_lookup.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <future>
#include <map>
#include <mutex>
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
    // IPv4 first, as hiredis connects unless told to prefer IPv6 ("localhost" is ::1 first in
    // /etc/hosts, and a Redis is often bound to 127.0.0.1 alone).
    std::stable_partition(addresses.begin(), addresses.end(), [](const std::string& address) { return address.find(':') == std::string::npos; });
    return addresses;
}

std::optional<std::vector<std::string>> addresses_within(const std::string& host, util::Milliseconds limit, const HostLookup& lookup) {
    if (numeric(host)) return std::vector<std::string>{host};
    // One lookup of a name at a time: while a quiet name server holds one, the syncs after it
    // wait for that one rather than leaving a thread behind each.
    static std::mutex mutex;
    static std::map<std::string, std::shared_future<std::vector<std::string>>> in_flight;
    std::shared_future<std::vector<std::string>> answer;
    {
        std::lock_guard lock(mutex);
        std::erase_if(in_flight, [](const auto& entry) { return entry.second.wait_for(std::chrono::seconds{0}) == std::future_status::ready; });
        auto& pending = in_flight[host];
        if (!pending.valid()) {
            // The promise lives with the thread, which may outlast this call (a lookup past the limit).
            auto promise = std::make_shared<std::promise<std::vector<std::string>>>();
            pending = promise->get_future().share();
            std::thread([promise, host, lookup] {
                try {
                    promise->set_value(lookup(host));
                } catch (...) {
                    promise->set_value({});
                }
            }).detach();
        }
        answer = pending;
    }
    if (answer.wait_for(limit) != std::future_status::ready) return std::nullopt;
    return answer.get();
}

} // namespace wr::state
