// Parses bypass-rule expressions: a lexer, a recursive-descent parser with Cloudflare's
// precedence (not > and > xor > or), and type checking as the tree is built, so that every
// error found when a rule is stored names its column.
#include "expr/parser.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cstring>
#include <re2/re2.h>

#include "util/utf8.h"

namespace wr::expr {
namespace {

enum class TokenKind {
    end,
    word,    // field names, keyword operators, integers and IP literals: [A-Za-z0-9_.:/]+
    string,  // "…" or r"…"
    lparen,
    rparen,
    lbrace,
    rbrace,
    lbracket,
    rbracket,
    comma,
    symbol, // == != < <= > >= ~ ! && || ^^
};

struct Token {
    TokenKind kind = TokenKind::end;
    std::string text; // words and symbols as written; strings unescaped
    size_t column = 0;
};

struct Failure {
    ParseError error;
};

[[noreturn]] void fail(size_t column, std::string message) { throw Failure{ParseError{column, std::move(message)}}; }

bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '/';
}

std::vector<Token> tokenize(std::string_view input) {
    std::vector<Token> tokens;
    size_t at = 0;
    while (true) {
        while (at < input.size() && (input[at] == ' ' || input[at] == '\t' || input[at] == '\n' || input[at] == '\r'))
            ++at;
        Token token;
        token.column = at + 1;
        if (at >= input.size()) {
            tokens.push_back(token);
            return tokens;
        }
        const char c = input[at];
        // Raw strings: r"…" and r#"…"#, no escapes inside.
        if (c == 'r' && at + 1 < input.size() && (input[at + 1] == '"' || input[at + 1] == '#')) {
            size_t hashes = 0;
            size_t cursor = at + 1;
            while (cursor < input.size() && input[cursor] == '#') ++hashes, ++cursor;
            if (cursor < input.size() && input[cursor] == '"') {
                const std::string closing = "\"" + std::string(hashes, '#');
                const size_t end = input.find(closing, cursor + 1);
                if (end == std::string_view::npos) fail(token.column, "unterminated raw string");
                token.kind = TokenKind::string;
                token.text = std::string(input.substr(cursor + 1, end - cursor - 1));
                at = end + closing.size();
                tokens.push_back(std::move(token));
                continue;
            }
        }
        if (c == '"') {
            token.kind = TokenKind::string;
            ++at;
            bool closed = false;
            while (at < input.size()) {
                const char d = input[at];
                if (d == '"') {
                    closed = true;
                    ++at;
                    break;
                }
                if (d == '\\') {
                    if (at + 1 >= input.size()) break;
                    const char escaped = input[at + 1];
                    if (escaped != '"' && escaped != '\\') fail(at + 1, std::string("unknown escape '\\") + escaped + "'");
                    token.text += escaped;
                    at += 2;
                    continue;
                }
                token.text += d;
                ++at;
            }
            if (!closed) fail(token.column, "unterminated string");
            tokens.push_back(std::move(token));
            continue;
        }
        if (is_word_char(c)) {
            token.kind = TokenKind::word;
            while (at < input.size() && is_word_char(input[at])) token.text += input[at++];
            tokens.push_back(std::move(token));
            continue;
        }
        static constexpr std::string_view k_two_char[] = {"==", "!=", "<=", ">=", "&&", "||", "^^"};
        bool matched = false;
        for (const std::string_view symbol : k_two_char) {
            if (input.substr(at, 2) == symbol) {
                token.kind = TokenKind::symbol;
                token.text = std::string(symbol);
                at += 2;
                matched = true;
                break;
            }
        }
        if (matched) {
            tokens.push_back(std::move(token));
            continue;
        }
        switch (c) {
        case '(': token.kind = TokenKind::lparen; break;
        case ')': token.kind = TokenKind::rparen; break;
        case '{': token.kind = TokenKind::lbrace; break;
        case '}': token.kind = TokenKind::rbrace; break;
        case '[': token.kind = TokenKind::lbracket; break;
        case ']': token.kind = TokenKind::rbracket; break;
        case ',': token.kind = TokenKind::comma; break;
        case '<':
        case '>':
        case '~':
        case '!': token.kind = TokenKind::symbol; break;
        case '$': fail(token.column, "named lists are not supported");
        default: fail(token.column, std::string("unexpected character '") + c + "'");
        }
        token.text = std::string(1, c);
        ++at;
        tokens.push_back(std::move(token));
    }
}

struct FieldInfo {
    std::string_view name;
    Field field;
    ValueType type;
};

constexpr FieldInfo k_fields[] = {
    {"ip.src", Field::ip_src, ValueType::ip},
    {"http.host", Field::http_host, ValueType::string},
    {"http.request.uri", Field::http_request_uri, ValueType::string},
    {"http.request.uri.path", Field::http_request_uri_path, ValueType::string},
    {"http.request.uri.query", Field::http_request_uri_query, ValueType::string},
    {"http.request.method", Field::http_request_method, ValueType::string},
    {"http.user_agent", Field::http_user_agent, ValueType::string},
    {"http.cookie", Field::http_cookie, ValueType::string},
    {"http.referer", Field::http_referer, ValueType::string},
};

struct FunctionInfo {
    std::string_view name;
    Function function;
};

constexpr FunctionInfo k_functions[] = {
    {"lower", Function::lower},
    {"len", Function::len},
    {"starts_with", Function::starts_with},
    {"ends_with", Function::ends_with},
};

std::optional<CompareOp> compare_op(const Token& token) {
    if (token.kind != TokenKind::word && token.kind != TokenKind::symbol) return std::nullopt;
    static constexpr std::pair<std::string_view, CompareOp> k_ops[] = {
        {"eq", CompareOp::eq},       {"==", CompareOp::eq},          {"ne", CompareOp::ne},
        {"!=", CompareOp::ne},       {"lt", CompareOp::lt},          {"<", CompareOp::lt},
        {"le", CompareOp::le},       {"<=", CompareOp::le},          {"gt", CompareOp::gt},
        {">", CompareOp::gt},        {"ge", CompareOp::ge},          {">=", CompareOp::ge},
        {"contains", CompareOp::contains}, {"matches", CompareOp::matches}, {"~", CompareOp::matches},
        {"in", CompareOp::in},
    };
    for (const auto& [name, op] : k_ops)
        if (token.text == name) return op;
    return std::nullopt;
}

bool is_integer_text(std::string_view text) {
    return !text.empty() && text.size() <= 18 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

class Parser {
public:
    explicit Parser(std::vector<Token> tokens) : m_tokens(std::move(tokens)) {}

    NodePtr parse_all() {
        NodePtr root = parse_or(0);
        if (peek().kind != TokenKind::end) fail(peek().column, "unexpected '" + describe(peek()) + "'");
        if (root->type != ValueType::boolean)
            fail(root->column, "the expression is " + with_article(root->type) + ", not a condition");
        return root;
    }

private:
    const Token& peek() const { return m_tokens[m_position]; }
    const Token& take() { return m_tokens[m_position < m_tokens.size() - 1 ? m_position++ : m_position]; }

    static std::string describe(const Token& token) {
        if (token.kind == TokenKind::end) return "end of expression";
        if (token.kind == TokenKind::string) return "\"" + token.text + "\"";
        return token.text;
    }

    bool accept_word(std::string_view word, std::string_view symbol) {
        const Token& token = peek();
        if ((token.kind == TokenKind::word && token.text == word) ||
            (token.kind == TokenKind::symbol && token.text == symbol)) {
            take();
            return true;
        }
        return false;
    }

    void expect(TokenKind kind, const char* what) {
        if (peek().kind != kind) fail(peek().column, std::string("expected ") + what + ", found '" + describe(peek()) + "'");
        take();
    }

    void check_depth(int depth) {
        if (depth > k_max_nesting_depth)
            fail(peek().column, "nesting deeper than " + std::to_string(k_max_nesting_depth) + " levels");
    }

    NodePtr logical(LogicalOp op, NodePtr left, NodePtr right) {
        for (const NodePtr* side : {&left, &right})
            if ((*side)->type != ValueType::boolean)
                fail((*side)->column, "expected a condition, found " + with_article((*side)->type) +
                                          " (compare it with an operator such as eq)");
        auto node = std::make_unique<Node>(Node::Kind::logical);
        node->logical = op;
        node->column = left->column;
        node->children.push_back(std::move(left));
        node->children.push_back(std::move(right));
        return node;
    }

    NodePtr parse_or(int depth) {
        check_depth(depth);
        NodePtr left = parse_xor(depth);
        while (accept_word("or", "||")) left = logical(LogicalOp::op_or, std::move(left), parse_xor(depth));
        return left;
    }

    NodePtr parse_xor(int depth) {
        NodePtr left = parse_and(depth);
        while (accept_word("xor", "^^")) left = logical(LogicalOp::op_xor, std::move(left), parse_and(depth));
        return left;
    }

    NodePtr parse_and(int depth) {
        NodePtr left = parse_not(depth);
        while (accept_word("and", "&&")) left = logical(LogicalOp::op_and, std::move(left), parse_not(depth));
        return left;
    }

    NodePtr parse_not(int depth) {
        const size_t column = peek().column;
        if (accept_word("not", "!")) {
            check_depth(depth + 1);
            NodePtr operand = parse_not(depth + 1);
            if (operand->type != ValueType::boolean)
                fail(operand->column, "'not' needs a condition, found " + with_article(operand->type));
            auto node = std::make_unique<Node>(Node::Kind::logical_not);
            node->column = column;
            node->children.push_back(std::move(operand));
            return node;
        }
        return parse_comparison(depth);
    }

    NodePtr parse_comparison(int depth) {
        if (peek().kind == TokenKind::lparen) {
            take();
            NodePtr inner = parse_or(depth + 1);
            expect(TokenKind::rparen, "')'");
            return inner;
        }
        NodePtr left = parse_value(depth);
        const std::optional<CompareOp> op = compare_op(peek());
        if (!op) return left;
        const Token op_token = take();
        auto node = std::make_unique<Node>(Node::Kind::compare);
        node->compare = *op;
        node->column = left->column;
        check_operator(*op, op_token, *left);
        if (*op == CompareOp::in) {
            parse_set(*node, left->type);
        } else {
            if (peek().kind == TokenKind::end) fail(peek().column, "expected a value after '" + op_token.text + "'");
            NodePtr right = parse_literal(left->type, op_token);
            if (*op == CompareOp::matches) {
                auto regex = std::make_shared<re2::RE2>(right->text, re2::RE2::Quiet);
                if (!regex->ok()) fail(right->column, "invalid regular expression: " + regex->error());
                node->regex = std::move(regex);
            }
            node->children.push_back(std::move(right));
        }
        node->children.insert(node->children.begin(), std::move(left));
        return node;
    }

    static void check_operator(CompareOp op, const Token& token, const Node& left) {
        const auto refuse = [&] {
            fail(token.column, "'" + token.text + "' cannot compare " + with_article(left.type));
        };
        switch (left.type) {
        case ValueType::boolean: refuse(); break;
        case ValueType::ip:
            if (op != CompareOp::eq && op != CompareOp::ne && op != CompareOp::in) refuse();
            break;
        case ValueType::integer:
            if (op == CompareOp::contains || op == CompareOp::matches) refuse();
            break;
        case ValueType::string: break;
        }
    }

    // The right-hand side of a comparison: a literal of the left side's type.
    NodePtr parse_literal(ValueType type, const Token& after) {
        const Token& token = peek();
        const auto wrong = [&](const char* found) {
            fail(token.column, "'" + after.text + "' needs " + (type == ValueType::ip ? "an IP address or network" :
                                                               type == ValueType::integer ? "an integer" : "a string") +
                                   ", found " + found);
        };
        switch (type) {
        case ValueType::string: {
            if (token.kind != TokenKind::string) wrong(token.kind == TokenKind::end ? "the end" : ("'" + describe(token) + "'").c_str());
            auto node = std::make_unique<Node>(Node::Kind::string_literal);
            node->type = ValueType::string;
            node->column = token.column;
            node->text = take().text;
            return node;
        }
        case ValueType::integer: {
            if (token.kind != TokenKind::word || !is_integer_text(token.text)) wrong(("'" + describe(token) + "'").c_str());
            auto node = std::make_unique<Node>(Node::Kind::integer_literal);
            node->type = ValueType::integer;
            node->column = token.column;
            node->integer = std::stoll(take().text);
            return node;
        }
        case ValueType::ip: {
            if (token.kind != TokenKind::word) wrong(("'" + describe(token) + "'").c_str());
            const std::optional<IpNetwork> network = parse_ip_network(token.text);
            if (!network) fail(token.column, "'" + token.text + "' is not an IP address or network");
            auto node = std::make_unique<Node>(Node::Kind::ip_literal);
            node->type = ValueType::ip;
            node->column = token.column;
            node->ip = *network;
            take();
            return node;
        }
        case ValueType::boolean: break;
        }
        fail(token.column, "unexpected '" + describe(token) + "'");
    }

    void parse_set(Node& node, ValueType type) {
        const Token& open = peek();
        expect(TokenKind::lbrace, "'{'");
        const Token in_token{TokenKind::word, "in", open.column};
        size_t count = 0;
        while (peek().kind != TokenKind::rbrace) {
            if (peek().kind == TokenKind::comma) {
                take();
                continue;
            }
            if (peek().kind == TokenKind::end) fail(peek().column, "expected '}' to close the set");
            NodePtr element = parse_literal(type, in_token);
            switch (type) {
            case ValueType::string: node.string_set.push_back(element->text); break;
            case ValueType::integer: node.integer_set.push_back(element->integer); break;
            case ValueType::ip: node.ip_set.push_back(element->ip); break;
            case ValueType::boolean: break;
            }
            ++count;
        }
        take();
        if (count == 0) fail(open.column, "the set is empty");
        std::sort(node.string_set.begin(), node.string_set.end());
        std::sort(node.integer_set.begin(), node.integer_set.end());
    }

    NodePtr parse_value(int depth) {
        const Token& token = peek();
        if (token.kind != TokenKind::word) {
            if (token.kind == TokenKind::end) fail(token.column, "unexpected end of expression");
            fail(token.column, "expected a field or function, found '" + describe(token) + "'");
        }
        const std::string name = token.text;
        const size_t column = token.column;
        take();
        if (peek().kind == TokenKind::lparen) return parse_call(name, column, depth);
        if (name == "http.request.headers") {
            expect(TokenKind::lbracket, "'[' after http.request.headers");
            if (peek().kind != TokenKind::string) fail(peek().column, "expected a header name in quotes");
            auto node = std::make_unique<Node>(Node::Kind::field);
            node->field = Field::http_request_header;
            node->type = ValueType::string;
            node->column = column;
            node->header_name = take().text;
            std::transform(node->header_name.begin(), node->header_name.end(), node->header_name.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            expect(TokenKind::rbracket, "']'");
            return node;
        }
        for (const FieldInfo& info : k_fields) {
            if (info.name == name) {
                auto node = std::make_unique<Node>(Node::Kind::field);
                node->field = info.field;
                node->type = info.type;
                node->column = column;
                return node;
            }
        }
        if (is_integer_text(name))
            fail(column, "a literal cannot stand on the left; write the field or function first, as in 'len(http.request.uri.path) eq " + name + "'");
        if (parse_ip_network(name))
            fail(column, "a literal cannot stand on the left; write the field first, as in 'ip.src eq " + name + "'");
        fail(column, "unknown field '" + name + "'");
    }

    NodePtr parse_call(const std::string& name, size_t column, int depth) {
        const FunctionInfo* info = nullptr;
        for (const FunctionInfo& candidate : k_functions)
            if (candidate.name == name) info = &candidate;
        if (!info) fail(column, "unknown function '" + name + "'");
        check_depth(depth + 1);
        take(); // (
        auto node = std::make_unique<Node>(Node::Kind::call);
        node->function = info->function;
        node->column = column;
        const bool takes_pattern = info->function == Function::starts_with || info->function == Function::ends_with;
        NodePtr subject = parse_value(depth + 1);
        if (subject->type != ValueType::string)
            fail(subject->column, name + "() needs a string, found " + with_article(subject->type));
        node->children.push_back(std::move(subject));
        if (takes_pattern) {
            expect(TokenKind::comma, "',' and a second argument");
            if (peek().kind != TokenKind::string) fail(peek().column, name + "() needs a string as its second argument");
            auto literal = std::make_unique<Node>(Node::Kind::string_literal);
            literal->type = ValueType::string;
            literal->column = peek().column;
            literal->text = take().text;
            node->children.push_back(std::move(literal));
        }
        expect(TokenKind::rparen, "')'");
        node->type = info->function == Function::lower ? ValueType::string
                     : info->function == Function::len  ? ValueType::integer
                                                        : ValueType::boolean;
        return node;
    }

    std::vector<Token> m_tokens;
    size_t m_position = 0;
};

} // namespace

bool IpNetwork::contains(const std::array<uint8_t, 16>& candidate) const {
    const int full_bytes = prefix_length / 8;
    if (std::memcmp(address.data(), candidate.data(), static_cast<size_t>(full_bytes)) != 0) return false;
    const int rest = prefix_length % 8;
    if (rest == 0) return true;
    const auto mask = static_cast<uint8_t>(0xff << (8 - rest));
    return (address[full_bytes] & mask) == (candidate[full_bytes] & mask);
}

const char* field_name(Field field) {
    for (const FieldInfo& info : k_fields)
        if (info.field == field) return info.name.data();
    return "http.request.headers";
}

std::string with_article(ValueType type) {
    const std::string name = type_name(type);
    return (type == ValueType::integer || type == ValueType::ip ? "an " : "a ") + name;
}

const char* type_name(ValueType type) {
    switch (type) {
    case ValueType::string: return "string";
    case ValueType::integer: return "integer";
    case ValueType::ip: return "IP address";
    case ValueType::boolean: return "condition";
    }
    return "value";
}

std::optional<IpNetwork> parse_ip_network(std::string_view text) {
    const size_t slash = text.find('/');
    const std::string address_text(text.substr(0, slash));
    IpNetwork network;
    in_addr v4{};
    in6_addr v6{};
    int max_prefix;
    if (inet_pton(AF_INET, address_text.c_str(), &v4) == 1) {
        network.is_v4 = true;
        network.address[10] = 0xff;
        network.address[11] = 0xff;
        std::memcpy(network.address.data() + 12, &v4, 4);
        max_prefix = 32;
    } else if (inet_pton(AF_INET6, address_text.c_str(), &v6) == 1) {
        std::memcpy(network.address.data(), &v6, 16);
        max_prefix = 128;
    } else {
        return std::nullopt;
    }
    int prefix = max_prefix;
    if (slash != std::string_view::npos) {
        const std::string_view prefix_text = text.substr(slash + 1);
        if (prefix_text.empty() || prefix_text.size() > 3 || !is_integer_text(prefix_text)) return std::nullopt;
        prefix = std::stoi(std::string(prefix_text));
        if (prefix > max_prefix) return std::nullopt;
    }
    network.prefix_length = network.is_v4 ? prefix + 96 : prefix;
    return network;
}

ParseResult parse(std::string_view expression) {
    ParseResult result;
    if (util::utf8_length(expression) > k_max_expression_length) {
        result.error = ParseError{k_max_expression_length + 1,
                                  "the expression is longer than " + std::to_string(k_max_expression_length) +
                                      " characters"};
        return result;
    }
    try {
        Parser parser(tokenize(expression));
        result.root = parser.parse_all();
    } catch (const Failure& failure) {
        result.error = failure.error;
    }
    return result;
}

} // namespace wr::expr
