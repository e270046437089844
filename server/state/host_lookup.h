#pragma once
// A host name looked up within a time limit. hiredis looks names up with getaddrinfo, which
// waits as long as the system's resolver does (seconds per name server, times its attempts),
// not the connect timeout the caller set: a name server that stopped answering would hold up
// every sync. So the store looks the name up first, on a thread of its own, waits at most the
// connect timeout, and hands hiredis the addresses; a lookup that takes longer is left to finish
// alone, its answer dropped.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/clock.h"

namespace wr::state {

// A host's addresses as numeric text, in the resolver's order; empty when it has none.
using HostLookup = std::function<std::vector<std::string>(const std::string& host)>;

// getaddrinfo (TCP): its IPv4 addresses first, then IPv6, as hiredis tries them.
std::vector<std::string> system_lookup(const std::string& host);

// The host's addresses, or nullopt when the lookup took longer than `limit`. A numeric address
// is its own answer, with no lookup. A name already being looked up (by an earlier call whose
// limit passed) is not looked up again meanwhile: the call waits for that lookup's answer.
std::optional<std::vector<std::string>> addresses_within(const std::string& host, util::Milliseconds limit,
                                                         const HostLookup& lookup = system_lookup);

} // namespace wr::state
