#pragma once
// Normalises what a visitor asked for into what routing compares: the host without port and
// case, and the path with unreserved percent-escapes decoded, dot segments removed and repeated
// slashes collapsed, so that no encoding of a path can slip past the room that guards it.
#include <string>
#include <string_view>

namespace wr::edge {

// "Shop.Example.com:8080" → "shop.example.com"; also strips a trailing dot and IPv6 brackets' port.
std::string normalize_host(std::string_view host_header);
// The same into `out`, whose room is reused (the Gate's per-request route).
void normalize_host_into(std::string_view host_header, std::string& out);

// Whether a Host header is one authority (RFC 9112 §3.2, RFC 3986 §3.2.2-3): a host name
// (letters, digits, '-', '.', '_', '~'), an IPv4 address or a bracketed IPv6 address, then
// optionally ':' and a port of digits (at most 65535). Anything else — "example.com:@evil.com",
// userinfo, a path, percent-escapes — is refused rather than routed by its first part and
// forwarded whole.
bool valid_host_header(std::string_view host);

struct SplitTarget {
    std::string_view path;  // raw, as sent
    std::string_view query; // without the '?', "" when none
};
// Splits a request target (origin-form or absolute-form) into path and query.
SplitTarget split_target(std::string_view target);

// "/shop/%7Euser/./a/../b//c" → "/shop/~user/b/c"; "%2F" stays encoded.
std::string normalize_path(std::string_view raw_path);
// The same into `out`, with `scratch` for the decoded path; both keep their room for the next request.
void normalize_path_into(std::string_view raw_path, std::string& out, std::string& scratch);

// Whether a path's dot segments ("..", "%2e%2e") climb above its root ("/../admin",
// "/a/../../admin"). Harmless on its own (every reader stops at the root), but under an origin's
// path prefix such a path would climb out of the prefix, so the edge forwards it normalised.
bool climbs_above_root(std::string_view raw_path);

// A normalised path as servlet containers (Tomcat, Jetty, Spring) read it: every segment's
// ";parameters" dropped, and segments left empty with them ("/shop;x/checkout" → "/shop/checkout").
// Into `out`, whose room is reused.
void strip_path_parameters_into(std::string_view path, std::string& out);

// False when `target` is in absolute form ("http://host/...") and its host is not `host`
// (normalised as by normalize_host); true for every other target.
bool host_matches_target(std::string_view target, std::string_view host);

// True when origins may read the path differently from routing and the rules: a backslash
// (raw or %5C), which some servers take for '/'; an encoded slash (%2F) that, decoded, makes a
// dot segment ("/static/..%2Fcheckout"); or a dot segment with path parameters
// ("/static/..;/checkout", which servlet containers read as "/checkout"). The edge refuses these
// with 400 rather than forward a path it did not judge.
bool ambiguous_path(std::string_view raw_path);

// Where to send a visitor back to on this site: the target's path and query, with one leading
// '/' and backslashes encoded, so that neither "//evil.example/", "/\\evil.example/" nor an
// absolute-form target can turn a redirect into one to another site.
std::string same_site_location(std::string_view target);

} // namespace wr::edge
