// Walks an expression tree for one request. Strings travel as views with a "lowered" flag:
// comparisons against a lowered value fold case as they go, so lower() copies nothing; only a
// regular expression on a lowered value needs the lowered text, written into a thread-local
// buffer.
#include "expr/evaluate.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <cstring>
#include <re2/re2.h>

namespace wr::expr {
namespace {

struct Text {
    std::string_view view;
    bool lowered = false;

    char at(size_t i) const {
        return lowered ? static_cast<char>(std::tolower(static_cast<unsigned char>(view[i]))) : view[i];
    }
};

struct Value {
    ValueType type = ValueType::boolean;
    Text text;
    int64_t integer = 0;
    const std::array<uint8_t, 16>* ip = nullptr;
    bool truth = false;
};

int compare_text(const Text& a, std::string_view b) {
    const size_t n = std::min(a.view.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
        const auto x = static_cast<unsigned char>(a.at(i));
        const auto y = static_cast<unsigned char>(b[i]);
        if (x != y) return x < y ? -1 : 1;
    }
    return a.view.size() < b.size() ? -1 : a.view.size() > b.size() ? 1 : 0;
}

bool text_equals(const Text& a, std::string_view b) { return a.view.size() == b.size() && compare_text(a, b) == 0; }

bool text_contains(const Text& haystack, std::string_view needle) {
    if (needle.empty()) return true;
    if (needle.size() > haystack.view.size()) return false;
    for (size_t start = 0; start + needle.size() <= haystack.view.size(); ++start) {
        size_t i = 0;
        while (i < needle.size() && haystack.at(start + i) == needle[i]) ++i;
        if (i == needle.size()) return true;
    }
    return false;
}

bool text_starts_with(const Text& text, std::string_view prefix) {
    if (prefix.size() > text.view.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i)
        if (text.at(i) != prefix[i]) return false;
    return true;
}

bool text_ends_with(const Text& text, std::string_view suffix) {
    if (suffix.size() > text.view.size()) return false;
    const size_t offset = text.view.size() - suffix.size();
    for (size_t i = 0; i < suffix.size(); ++i)
        if (text.at(offset + i) != suffix[i]) return false;
    return true;
}

bool regex_matches(const Text& text, const re2::RE2& regex) {
    if (!text.lowered) return re2::RE2::PartialMatch(re2::StringPiece(text.view.data(), text.view.size()), regex);
    // The lowered text, without allocating: request fields are bounded by the edge's header limit.
    thread_local std::array<char, 16 * 1024> scratch;
    const size_t n = std::min(text.view.size(), scratch.size());
    for (size_t i = 0; i < n; ++i) scratch[i] = text.at(i);
    return re2::RE2::PartialMatch(re2::StringPiece(scratch.data(), n), regex);
}

std::string_view field_text(const Node& node, const RequestFields& request) {
    switch (node.field) {
    case Field::http_host: return request.host;
    case Field::http_request_uri: return request.uri;
    case Field::http_request_uri_path: return request.path;
    case Field::http_request_uri_query: return request.query;
    case Field::http_request_method: return request.method;
    case Field::http_user_agent: return request.user_agent;
    case Field::http_cookie: return request.cookie;
    case Field::http_referer: return request.referer;
    case Field::http_request_header: return request.header ? request.header(request.header_context, node.header_name) : std::string_view{};
    case Field::ip_src: break;
    }
    return {};
}

Value value_of(const Node& node, const RequestFields& request);
bool truth_of(const Node& node, const RequestFields& request);

Value value_of(const Node& node, const RequestFields& request) {
    Value value;
    value.type = node.type;
    switch (node.kind) {
    case Node::Kind::field:
        if (node.field == Field::ip_src) value.ip = request.has_ip ? &request.ip : nullptr;
        else value.text.view = field_text(node, request);
        return value;
    case Node::Kind::string_literal: value.text.view = node.text; return value;
    case Node::Kind::integer_literal: value.integer = node.integer; return value;
    case Node::Kind::ip_literal: return value;
    case Node::Kind::call: {
        const Value subject = value_of(*node.children[0], request);
        switch (node.function) {
        case Function::lower: value.text = {subject.text.view, true}; return value;
        case Function::len: value.integer = static_cast<int64_t>(subject.text.view.size()); return value;
        case Function::starts_with: value.truth = text_starts_with(subject.text, node.children[1]->text); return value;
        case Function::ends_with: value.truth = text_ends_with(subject.text, node.children[1]->text); return value;
        }
        return value;
    }
    default: value.truth = truth_of(node, request); return value;
    }
}

bool compare(const Node& node, const RequestFields& request) {
    const Value left = value_of(*node.children[0], request);
    if (node.compare == CompareOp::in) {
        switch (left.type) {
        case ValueType::string: {
            // The set is sorted by bytes, and compare_text orders a lowered value by its lowered bytes.
            const auto found = std::lower_bound(node.string_set.begin(), node.string_set.end(), left.text,
                                                [](const std::string& element, const Text& probe) { return compare_text(probe, element) > 0; });
            return found != node.string_set.end() && compare_text(left.text, *found) == 0;
        }
        case ValueType::integer: return std::binary_search(node.integer_set.begin(), node.integer_set.end(), left.integer);
        case ValueType::ip:
            if (!left.ip) return false;
            return std::any_of(node.ip_set.begin(), node.ip_set.end(), [&](const IpNetwork& network) { return network.contains(*left.ip); });
        case ValueType::boolean: return false;
        }
        return false;
    }
    const Node& right = *node.children[1];
    switch (left.type) {
    case ValueType::ip: {
        const bool inside = left.ip && right.ip.contains(*left.ip);
        return node.compare == CompareOp::eq ? inside : !inside;
    }
    case ValueType::integer: {
        const int64_t a = left.integer;
        const int64_t b = right.integer;
        switch (node.compare) {
        case CompareOp::eq: return a == b;
        case CompareOp::ne: return a != b;
        case CompareOp::lt: return a < b;
        case CompareOp::le: return a <= b;
        case CompareOp::gt: return a > b;
        case CompareOp::ge: return a >= b;
        default: return false;
        }
    }
    case ValueType::string: {
        const std::string_view b = right.text;
        switch (node.compare) {
        case CompareOp::eq: return text_equals(left.text, b);
        case CompareOp::ne: return !text_equals(left.text, b);
        case CompareOp::lt: return compare_text(left.text, b) < 0;
        case CompareOp::le: return compare_text(left.text, b) <= 0;
        case CompareOp::gt: return compare_text(left.text, b) > 0;
        case CompareOp::ge: return compare_text(left.text, b) >= 0;
        case CompareOp::contains: return text_contains(left.text, b);
        case CompareOp::matches: return node.regex && regex_matches(left.text, *node.regex);
        case CompareOp::in: return false;
        }
        return false;
    }
    case ValueType::boolean: return false;
    }
    return false;
}

bool truth_of(const Node& node, const RequestFields& request) {
    switch (node.kind) {
    case Node::Kind::logical_not: return !truth_of(*node.children[0], request);
    case Node::Kind::logical: {
        const bool left = truth_of(*node.children[0], request);
        switch (node.logical) {
        case LogicalOp::op_and: return left && truth_of(*node.children[1], request);
        case LogicalOp::op_or: return left || truth_of(*node.children[1], request);
        case LogicalOp::op_xor: return left != truth_of(*node.children[1], request);
        }
        return false;
    }
    case Node::Kind::compare: return compare(node, request);
    case Node::Kind::call: return value_of(node, request).truth;
    default: return false;
    }
}

} // namespace

bool evaluate(const Node& expression, const RequestFields& request) { return truth_of(expression, request); }

bool parse_ip_address(std::string_view text, std::array<uint8_t, 16>& address) {
    char buffer[64];
    if (text.size() >= sizeof buffer) return false;
    std::memcpy(buffer, text.data(), text.size());
    buffer[text.size()] = '\0';
    in_addr v4{};
    in6_addr v6{};
    if (inet_pton(AF_INET, buffer, &v4) == 1) {
        address.fill(0);
        address[10] = 0xff;
        address[11] = 0xff;
        std::memcpy(address.data() + 12, &v4, 4);
        return true;
    }
    if (inet_pton(AF_INET6, buffer, &v6) == 1) {
        std::memcpy(address.data(), &v6, 16);
        return true;
    }
    return false;
}

} // namespace wr::expr
