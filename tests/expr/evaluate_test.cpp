// The bypass-rule evaluator: every field, operator and function against a request, precedence,
// IPv4 and IPv6 networks, and case folding by lower() in every comparison.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "expr/evaluate.h"
#include "expr/parser.h"

namespace {

struct SampleRequest {
    std::string ip = "198.51.100.7";
    std::string host = "shop.example.com";
    std::string uri = "/Static/App.JS?v=3&lang=en";
    std::string path = "/Static/App.JS";
    std::string query = "v=3&lang=en";
    std::string method = "GET";
    std::string user_agent = "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0";
    std::string cookie = "session=abc; theme=dark";
    std::string referer = "https://www.example.org/landing";
    std::map<std::string, std::string> headers = {{"x-health-check", "1"}, {"x-staff", "Yes"}};
};

std::string_view find_header(const void* context, std::string_view name) {
    const auto& headers = static_cast<const SampleRequest*>(context)->headers;
    const auto found = headers.find(std::string(name));
    return found == headers.end() ? std::string_view{} : std::string_view(found->second);
}

bool matches(std::string_view expression, const SampleRequest& request = {}) {
    const wr::expr::ParseResult parsed = wr::expr::parse(expression);
    const std::string why = std::string(expression) + ": " + (parsed.error ? parsed.error->text() : "");
    REQUIRE_MESSAGE(parsed.root, why);
    wr::expr::RequestFields fields;
    fields.has_ip = wr::expr::parse_ip_address(request.ip, fields.ip);
    fields.host = request.host;
    fields.uri = request.uri;
    fields.path = request.path;
    fields.query = request.query;
    fields.method = request.method;
    fields.user_agent = request.user_agent;
    fields.cookie = request.cookie;
    fields.referer = request.referer;
    fields.header = find_header;
    fields.header_context = &request;
    return wr::expr::evaluate(*parsed.root, fields);
}

} // namespace

TEST_CASE("expr::evaluate reads every string field of the request") {
    CHECK(matches(R"(http.host eq "shop.example.com")"));
    CHECK(matches(R"(http.request.uri eq "/Static/App.JS?v=3&lang=en")"));
    CHECK(matches(R"(http.request.uri.path eq "/Static/App.JS")"));
    CHECK(matches(R"(http.request.uri.query eq "v=3&lang=en")"));
    CHECK(matches(R"(http.request.method eq "GET")"));
    CHECK(matches(R"(http.user_agent contains "Chrome/")"));
    CHECK(matches(R"(http.cookie contains "theme=dark")"));
    CHECK(matches(R"(http.referer eq "https://www.example.org/landing")"));
    CHECK(matches(R"(http.request.headers["X-Health-Check"] eq "1")"));
    CHECK(matches(R"(http.request.headers["x-absent"] eq "")"));
    CHECK_FALSE(matches(R"(http.host eq "example.com")"));
    CHECK_FALSE(matches(R"(http.request.method eq "get")"));
}

TEST_CASE("expr::evaluate compares the client address with addresses and networks") {
    CHECK(matches("ip.src eq 198.51.100.7"));
    CHECK_FALSE(matches("ip.src eq 198.51.100.8"));
    CHECK(matches("ip.src ne 198.51.100.8"));
    CHECK(matches("ip.src in {10.0.0.0/8 198.51.100.0/24}"));
    CHECK_FALSE(matches("ip.src in {10.0.0.0/8 192.0.2.0/24}"));
    CHECK(matches("ip.src in {::/0}")); // the whole IPv6 space includes the IPv4-mapped addresses

    SampleRequest v6;
    v6.ip = "2001:db8:1:2::99";
    CHECK(matches("ip.src in {2001:db8::/32}", v6));
    CHECK(matches("ip.src eq 2001:db8:1:2::99", v6));
    CHECK_FALSE(matches("ip.src in {2001:db9::/32 10.0.0.0/8}", v6));
    CHECK(matches("not ip.src in {0.0.0.0/0}", v6));

    SampleRequest unknown;
    unknown.ip = "";
    CHECK_FALSE(matches("ip.src eq 198.51.100.7", unknown));
    CHECK_FALSE(matches("ip.src in {0.0.0.0/0 ::/0}", unknown));
    CHECK(matches("ip.src ne 198.51.100.7", unknown));
}

TEST_CASE("expr::evaluate orders strings and integers with lt le gt ge") {
    CHECK(matches(R"(http.request.method lt "POST")"));
    CHECK(matches(R"(http.request.method le "GET")"));
    CHECK(matches(R"(http.request.method gt "DELETE")"));
    CHECK(matches(R"(http.request.method ge "GET")"));
    CHECK_FALSE(matches(R"(http.request.method gt "GET")"));
    CHECK(matches("len(http.cookie) eq 23"));
    CHECK(matches("len(http.cookie) ne 22"));
    CHECK(matches("len(http.cookie) lt 24"));
    CHECK(matches("len(http.cookie) le 23"));
    CHECK(matches("len(http.cookie) gt 22"));
    CHECK(matches("len(http.cookie) ge 23"));
    CHECK_FALSE(matches("len(http.cookie) gt 23"));
    CHECK(matches("len(http.request.uri.query) in {0 11}"));
    CHECK_FALSE(matches("len(http.request.uri.query) in {0 12}"));
}

TEST_CASE("expr::evaluate: contains, matches and in on strings") {
    CHECK(matches(R"(http.request.uri.path contains "/Static/")"));
    CHECK_FALSE(matches(R"(http.request.uri.path contains "/static/")"));
    CHECK(matches(R"(http.request.uri.path contains "")"));
    CHECK(matches(R"(http.request.uri.path matches "^/Static/.*\\.JS$")"));
    CHECK(matches(R"(http.request.uri.path ~ "App")"));            // unanchored, like Cloudflare's
    CHECK_FALSE(matches(R"(http.request.uri.path matches "^/app")"));
    CHECK(matches(R"(http.request.method in {"HEAD" "GET"})"));
    CHECK(matches(R"(http.request.method in {"POST", "GET", "PUT"})"));
    CHECK_FALSE(matches(R"(http.request.method in {"POST" "PUT"})"));
    CHECK_FALSE(matches(R"(http.request.method in {"GE" "GETS"})"));
}

TEST_CASE("expr::evaluate: starts_with, ends_with, and lower() folding case in every comparison") {
    CHECK(matches(R"(starts_with(http.request.uri.path, "/Static/"))"));
    CHECK_FALSE(matches(R"(starts_with(http.request.uri.path, "/static/"))"));
    CHECK(matches(R"(ends_with(http.request.uri.path, ".JS"))"));
    CHECK_FALSE(matches(R"(ends_with(http.request.uri.path, "/Static/App.JS.map"))"));

    CHECK(matches(R"(lower(http.request.uri.path) eq "/static/app.js")"));
    CHECK_FALSE(matches(R"(lower(http.request.uri.path) eq "/Static/App.JS")")); // the literal is not folded
    CHECK(matches(R"(lower(http.request.uri.path) ne "/Static/App.JS")"));
    CHECK(matches(R"(lower(http.request.uri.path) contains "/static/")"));
    CHECK(matches(R"(starts_with(lower(http.request.uri.path), "/static/"))"));
    CHECK(matches(R"(ends_with(lower(http.request.uri.path), ".js"))"));
    CHECK(matches(R"(lower(http.request.uri.path) matches r"^/static/[a-z]+\.js$")"));
    CHECK(matches(R"(lower(http.request.headers["x-staff"]) in {"no" "yes"})"));
    CHECK_FALSE(matches(R"(http.request.headers["x-staff"] in {"no" "yes"})"));
    CHECK(matches(R"(lower(http.request.method) lt "post")"));
    CHECK(matches(R"(len(lower(http.request.method)) eq 3)"));
}

TEST_CASE("expr::evaluate: not, and, or, xor with their precedence and parentheses") {
    const char* yes = R"(http.request.method eq "GET")";
    const char* no = R"(http.request.method eq "POST")";
    const auto both = [](const char* a, const char* op, const char* b) { return std::string(a) + " " + op + " " + b; };
    CHECK(matches(both(yes, "and", yes)));
    CHECK_FALSE(matches(both(yes, "&&", no)));
    CHECK(matches(both(no, "or", yes)));
    CHECK_FALSE(matches(both(no, "||", no)));
    CHECK(matches(both(yes, "xor", no)));
    CHECK_FALSE(matches(both(yes, "^^", yes)));
    CHECK(matches(std::string("not ") + no));
    CHECK(matches(std::string("! ") + no));
    CHECK_FALSE(matches(std::string("not ") + yes));

    // not binds tighter than and: (not no) and yes
    CHECK(matches(std::string("not ") + no + " and " + yes));
    // and binds tighter than or: yes or (no and no)
    CHECK(matches(std::string(yes) + " or " + no + " and " + no));
    // ... and parentheses override it: (yes or no) and no
    CHECK_FALSE(matches(std::string("(") + yes + " or " + no + ") and " + no));
    // xor binds tighter than or and looser than and: no or (yes xor (yes and no))
    CHECK(matches(std::string(no) + " or " + yes + " xor " + yes + " and " + no));
    // not applies to a parenthesised group
    CHECK(matches(std::string("not (") + yes + " and " + no + ")"));
}

TEST_CASE("expr::evaluate: the rules users write for waiting rooms") {
    const char* assets = R"(starts_with(http.request.uri.path, "/static/") or ends_with(lower(http.request.uri.path), ".css"))";
    SampleRequest asset;
    asset.path = "/static/logo.png";
    CHECK(matches(assets, asset));
    asset.path = "/Styles/Site.CSS";
    CHECK(matches(assets, asset));
    asset.path = "/checkout";
    CHECK_FALSE(matches(assets, asset));

    const char* staff = R"(ip.src in {10.0.0.0/8 2001:db8::/32} and http.request.headers["x-staff"] eq "Yes")";
    SampleRequest office;
    office.ip = "10.20.30.40";
    CHECK(matches(staff, office));
    office.headers.erase("x-staff");
    CHECK_FALSE(matches(staff, office));

    CHECK(matches(R"(http.request.uri.path eq "/healthz" or http.request.headers["x-health-check"] eq "1")"));
}
