#pragma once
// The syntax tree of a bypass-rule expression (a subset of Cloudflare's Rules language).
// Built once when a rule is stored or loaded; evaluation walks it without allocating.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace re2 {
class RE2;
}

namespace wr::expr {

enum class Field {
    ip_src,
    http_host,
    http_request_uri,
    http_request_uri_path,
    http_request_uri_query,
    http_request_method,
    http_user_agent,
    http_cookie,
    http_referer,
    http_request_header, // http.request.headers["name"]
};

enum class ValueType { string, integer, ip, boolean };

// An IPv4 or IPv6 network; a single address has the full prefix length. IPv4 is held as an
// IPv4-mapped IPv6 address so that one comparison serves both families.
struct IpNetwork {
    std::array<uint8_t, 16> address{};
    int prefix_length = 128; // in bits of the 16-byte form
    bool is_v4 = false;

    bool contains(const std::array<uint8_t, 16>& candidate) const;
};

enum class Function { lower, len, starts_with, ends_with };
enum class CompareOp { eq, ne, lt, le, gt, ge, contains, matches, in };
enum class LogicalOp { op_and, op_or, op_xor };

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
    enum class Kind { field, string_literal, integer_literal, ip_literal, call, compare, logical, logical_not };
    Kind kind;
    ValueType type = ValueType::boolean;
    size_t column = 0; // 1-based, where the node starts in the expression

    Field field = Field::http_host;  // field
    std::string header_name;         // field http_request_header, lowercased
    std::string text;                // string_literal
    int64_t integer = 0;             // integer_literal
    IpNetwork ip;                    // ip_literal
    Function function = Function::lower; // call
    CompareOp compare = CompareOp::eq;   // compare
    LogicalOp logical = LogicalOp::op_and; // logical
    std::vector<NodePtr> children;   // call arguments, compare operands (left, right), logical operands

    // compare `in`: the set, pre-sorted for lookup
    std::vector<std::string> string_set;
    std::vector<int64_t> integer_set;
    std::vector<IpNetwork> ip_set;
    std::shared_ptr<const re2::RE2> regex; // compare `matches`

    explicit Node(Kind k) : kind(k) {}
};

const char* field_name(Field field);
const char* type_name(ValueType type);
std::string with_article(ValueType type); // "a string", "an integer", "an IP address"

} // namespace wr::expr
