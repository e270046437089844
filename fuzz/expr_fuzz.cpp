// libFuzzer target for the bypass-rule language: parses any bytes as an expression and, when it
// parses, evaluates it against fixed requests and one built from the fuzzer's bytes. Checks the
// parser's promises: exactly one of a tree or an error, an error column inside the input, a
// boolean root, deterministic results. Build and run with `make fuzz` (fuzz/run.sh).
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string_view>

#include "expr/evaluate.h"
#include "expr/parser.h"

namespace {

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

std::string_view fixed_header(const void*, std::string_view name) {
    if (name == "x-health-check") return "1";
    if (name == "accept-language") return "de-DE,de;q=0.9";
    return {};
}

// Headers of the fuzzed request: every name answers the same fuzzed value.
std::string_view echo_header(const void* context, std::string_view) { return *static_cast<const std::string_view*>(context); }

wr::expr::RequestFields browser_request() {
    wr::expr::RequestFields fields;
    wr::expr::parse_ip_address("203.0.113.9", fields.ip);
    fields.has_ip = true;
    fields.host = "shop.example.com";
    fields.uri = "/static/app.css?v=1";
    fields.path = "/static/app.css";
    fields.query = "v=1";
    fields.method = "GET";
    fields.user_agent = "Mozilla/5.0 (X11; Linux x86_64) Chrome/120";
    fields.cookie = "theme=dark; __cfwaitingroom=abc";
    fields.referer = "https://shop.example.com/";
    fields.header = fixed_header;
    return fields;
}

wr::expr::RequestFields empty_v6_request() {
    wr::expr::RequestFields fields;
    wr::expr::parse_ip_address("2001:db8::1", fields.ip);
    fields.has_ip = true;
    return fields;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // Everything before the first NUL is the expression; what follows (if any) fills a request.
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t nul = input.find('\0');
    const std::string_view expression = input.substr(0, nul);
    const std::string_view values = nul == std::string_view::npos ? std::string_view{} : input.substr(nul + 1);

    const wr::expr::ParseResult result = wr::expr::parse(expression);
    check(static_cast<bool>(result.root) != result.error.has_value(), "a tree or an error, never both or neither");
    if (result.error) {
        check(result.error->column >= 1 && result.error->column <= expression.size() + 1, "error column inside the input");
        check(!result.error->message.empty(), "error has a message");
        const wr::expr::ParseResult again = wr::expr::parse(expression);
        check(again.error && again.error->text() == result.error->text(), "errors are deterministic");
        return 0;
    }
    check(expression.size() <= wr::expr::k_max_expression_length, "over-long expressions are refused");
    check(result.root->type == wr::expr::ValueType::boolean, "a rule is a boolean");

    const wr::expr::RequestFields fixed[] = {browser_request(), empty_v6_request(), wr::expr::RequestFields{}};
    for (const wr::expr::RequestFields& request : fixed)
        check(wr::expr::evaluate(*result.root, request) == wr::expr::evaluate(*result.root, request), "evaluation is deterministic");

    wr::expr::RequestFields fuzzed;
    fuzzed.host = fuzzed.uri = fuzzed.path = fuzzed.query = fuzzed.method = values;
    fuzzed.user_agent = fuzzed.cookie = fuzzed.referer = values;
    fuzzed.header = echo_header;
    fuzzed.header_context = &values;
    if (values.size() >= 16) {
        for (size_t i = 0; i < 16; ++i) fuzzed.ip[i] = static_cast<uint8_t>(values[i]);
        fuzzed.has_ip = true;
    }
    check(wr::expr::evaluate(*result.root, fuzzed) == wr::expr::evaluate(*result.root, fuzzed), "evaluation is deterministic");
    return 0;
}
