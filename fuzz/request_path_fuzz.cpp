// libFuzzer target for what routing compares: host and path normalisation, Host validation,
// ambiguous paths, target splitting, and the X-Forwarded-For client-address walk. Any bytes must give an answer, never a crash.
// Build and run with `make fuzz` (fuzz/run.sh).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "edge/client_address.h"
#include "edge/request_path.h"

namespace {

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::string host = wr::edge::normalize_host(input);
    check(host.size() <= input.size(), "a normalised host is never longer");
    const wr::edge::SplitTarget target = wr::edge::split_target(input);
    check(target.path.size() + target.query.size() <= input.size(), "split parts lie inside the target");
    const std::string path = wr::edge::normalize_path(target.path);
    // A path routing and the origin might read apart is refused, so what passes routes alike
    // with and without ;parameters' dot segments; one that climbs out of a prefix goes normalised.
    (void)wr::edge::ambiguous_path(target.path);
    if (wr::edge::climbs_above_root(target.path)) check(!wr::edge::climbs_above_root(path), "the normalised path stays below its root");
    std::string stripped;
    wr::edge::strip_path_parameters_into(path, stripped);
    check(stripped.starts_with('/') && stripped.size() <= path.size() + 1, "parameters only ever come off");
    // A Host that passes is what routing can name: no '@', '/', or a second ':' outside brackets.
    if (wr::edge::valid_host_header(input) && !input.starts_with('[')) {
        check(input.find_first_of("@/?#\\ ") == std::string_view::npos, "a valid Host has no userinfo, path or space");
        check(input.find(':') == input.rfind(':'), "a valid Host has at most one port");
    }

    static const wr::edge::TrustedProxies proxies = wr::edge::TrustedProxies::parse({"127.0.0.0/8", "10.0.0.0/8", "::1"});
    wr::queue::ClientAddress peer{};
    peer[10] = peer[11] = 0xff;
    peer[12] = 127;
    peer[15] = 1; // ::ffff:127.0.0.1, a trusted proxy: the header is read
    const wr::queue::ClientAddress client = wr::edge::client_address(peer, input, proxies);
    check(!wr::edge::address_text(client).empty(), "a client address always has a text form");
    return 0;
}
