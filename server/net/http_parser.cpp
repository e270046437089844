// llhttp behind the edge's interface: spans collected as offsets while the head arrives (the
// read buffer may grow between reads), turned into views once the head is complete.
#include "net/http_parser.h"

#include <cstring>
#include <llhttp.h>

#include "util/trim.h"

namespace wr::net {
namespace {

struct Span {
    uint32_t offset = 0;
    uint32_t length = 0;
    bool open = false;
};

struct RawField {
    Span name;
    Span value;
};

} // namespace

struct HttpParser::State {
    llhttp_t parser{};
    llhttp_settings_t settings{};
    HttpParser::Kind kind;
    const char* base = nullptr; // the message's first byte during parse_head
    size_t parsed = 0;
    Span method, target, reason;
    std::vector<RawField> fields;
    bool field_open = false;   // a header name is being read
    bool head_complete = false;
    bool message_complete = false;
    bool too_many = false;
    bool to_head_request = false;
    bool paused = false;
    std::vector<std::string_view>* pieces = nullptr;

    static State& of(llhttp_t* parser) { return *static_cast<State*>(parser->data); }

    void extend(Span& span, const char* at, size_t length) {
        if (!span.open) {
            span.offset = static_cast<uint32_t>(at - base);
            span.length = 0;
            span.open = true;
        }
        span.length += static_cast<uint32_t>(length);
    }

    explicit State(HttpParser::Kind kind_) : kind(kind_) {
        llhttp_settings_init(&settings);
        settings.on_method = [](llhttp_t* p, const char* at, size_t length) {
            State& state = of(p);
            state.extend(state.method, at, length);
            return 0;
        };
        settings.on_url = [](llhttp_t* p, const char* at, size_t length) {
            State& state = of(p);
            state.extend(state.target, at, length);
            return 0;
        };
        settings.on_status = [](llhttp_t* p, const char* at, size_t length) {
            State& state = of(p);
            state.extend(state.reason, at, length);
            return 0;
        };
        settings.on_header_field = [](llhttp_t* p, const char* at, size_t length) {
            State& state = of(p);
            if (state.head_complete) return 0; // a chunked trailer: dropped, never merged into the head
            if (!state.field_open) {
                if (state.fields.size() >= k_max_header_fields) {
                    state.too_many = true;
                    return static_cast<int>(HPE_USER);
                }
                state.fields.emplace_back();
                state.field_open = true;
            }
            state.extend(state.fields.back().name, at, length);
            return 0;
        };
        settings.on_header_field_complete = [](llhttp_t* p) {
            State& state = of(p);
            if (!state.head_complete) state.field_open = false;
            return 0;
        };
        settings.on_header_value = [](llhttp_t* p, const char* at, size_t length) {
            State& state = of(p);
            if (state.head_complete || state.fields.empty()) return 0;
            state.extend(state.fields.back().value, at, length);
            return 0;
        };
        settings.on_headers_complete = [](llhttp_t* p) {
            State& state = of(p);
            state.head_complete = true;
            return static_cast<int>(HPE_PAUSED);
        };
        settings.on_body = [](llhttp_t* p, const char* at, size_t length) {
            State& state = of(p);
            if (state.pieces && length > 0) state.pieces->emplace_back(at, length);
            return 0;
        };
        settings.on_message_complete = [](llhttp_t* p) {
            State& state = of(p);
            state.message_complete = true;
            return static_cast<int>(HPE_PAUSED);
        };
    }

    void reset(bool head_request) {
        llhttp_init(&parser, kind == HttpParser::Kind::request ? HTTP_REQUEST : HTTP_RESPONSE, &settings);
        parser.data = this;
        base = nullptr;
        parsed = 0;
        method = target = reason = Span{};
        fields.clear();
        field_open = false;
        head_complete = message_complete = too_many = paused = false;
        to_head_request = head_request;
        pieces = nullptr;
    }
};

HttpParser::HttpParser(Kind kind) : m_state(std::make_unique<State>(kind)) {
    m_head.headers.reserve(32);
    m_state->fields.reserve(32);
    m_state->reset(false);
}

HttpParser::~HttpParser() = default;

void HttpParser::begin(bool to_head_request) {
    m_state->reset(to_head_request);
    m_head.headers.clear();
}

HeadStatus HttpParser::parse_head(const char* message, size_t available) {
    State& state = *m_state;
    if (state.head_complete) return HeadStatus::complete;
    state.base = message;
    const char* start = message + state.parsed;
    const llhttp_errno_t error = llhttp_execute(&state.parser, start, available - state.parsed);
    if (error == HPE_OK) {
        state.parsed = available;
        return HeadStatus::incomplete;
    }
    if (error == HPE_USER && state.too_many) return HeadStatus::too_many_headers;
    if (error != HPE_PAUSED || !state.head_complete) return HeadStatus::invalid;
    state.paused = true;
    const size_t size = static_cast<size_t>(llhttp_get_error_pos(&state.parser) - message);

    // llhttp keeps obs-fold even in strict mode; a strict proxy refuses it (RFC 9112 §5.2).
    const char* const end = message + size;
    for (const char* at = message; (at = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)))) && at + 1 < end; ++at)
        if (at[1] == ' ' || at[1] == '\t') return HeadStatus::invalid;

    const int major = llhttp_get_http_major(&state.parser);
    const int minor = llhttp_get_http_minor(&state.parser);
    if (major != 1 || minor > 1) return HeadStatus::unsupported_version;

    MessageHead& head = m_head;
    head.size = size;
    head.version_minor = minor;
    const auto view = [message](const Span& span) { return std::string_view(message + span.offset, span.length); };
    head.method = view(state.method);
    head.target = view(state.target);
    head.reason = view(state.reason);
    head.status = state.kind == Kind::response ? llhttp_get_status_code(&state.parser) : 0;
    head.headers.clear();
    for (const RawField& field : state.fields) head.headers.push_back({view(field.name), util::trim_blanks(view(field.value))});

    const unsigned flags = state.parser.flags;
    const bool chunked = (flags & F_CHUNKED) != 0;
    const bool has_length = (flags & F_CONTENT_LENGTH) != 0;
    const bool has_transfer_encoding = (flags & F_TRANSFER_ENCODING) != 0;
    head.content_length = has_length ? state.parser.content_length : 0;
    head.keep_alive = llhttp_should_keep_alive(&state.parser) != 0;
    // Chunked is the one transfer coding the edge speaks, and it remakes the chunks itself; a
    // message coded otherwise too ("gzip, chunked") would go on decoded of its chunks but still
    // gzip, labelled as neither. Refused, as nginx refuses it (a request whose coding does not end
    // in chunked has no length a server can trust anyway).
    const bool only_chunked = chunked && head.count("transfer-encoding") == 1 && equals_ignoring_case(head.find("transfer-encoding"), "chunked");
    if (state.kind == Kind::request) {
        if (has_transfer_encoding && !only_chunked) return HeadStatus::invalid;
        head.framing = chunked ? BodyFraming::chunked : has_length && head.content_length > 0 ? BodyFraming::length : BodyFraming::none;
        // Only a WebSocket handshake becomes a tunnel. Any other Upgrade (h2c, TLS) goes on as an
        // ordinary request, its Upgrade and Connection dropped as hop-by-hop: a protocol the edge
        // does not speak must not take the connection round every later request's decision.
        head.upgrade = state.parser.upgrade != 0 && state.parser.method != HTTP_CONNECT && has_token(head.find("upgrade"), "websocket");
        // An Upgrade that carries a body is treated as a plain request (WebSocket handshakes have none).
        if (head.framing != BodyFraming::none) head.upgrade = false;
        // llhttp reads "Connection: keep-alive, upgrade" as an upgrade; keep-alive is decided separately.
        head.keep_alive = (minor == 1 && !(flags & F_CONNECTION_CLOSE)) || (flags & F_CONNECTION_KEEP_ALIVE);
        // HTTP/1.0 has no Transfer-Encoding: whatever framed it may not have framed it so, and the
        // connection closes after it (RFC 9112 §6.1).
        if (minor == 0 && has_transfer_encoding) head.keep_alive = false;
    } else {
        const int status = head.status;
        head.upgrade = status == 101;
        if (state.to_head_request || (status >= 100 && status < 200) || status == 204 || status == 304)
            head.framing = BodyFraming::none;
        else if (has_transfer_encoding && !only_chunked)
            return HeadStatus::invalid; // (RFC 9112 §6.3 would read it to the close, still coded)
        else if (chunked)
            head.framing = BodyFraming::chunked;
        else if (has_length)
            head.framing = head.content_length > 0 ? BodyFraming::length : BodyFraming::none;
        else
            head.framing = BodyFraming::until_close;
        if (head.framing == BodyFraming::until_close) head.keep_alive = false;
    }
    return HeadStatus::complete;
}

BodyStatus HttpParser::parse_body(const char* data, size_t size, size_t& consumed, std::vector<std::string_view>& pieces) {
    State& state = *m_state;
    consumed = 0;
    if (m_head.framing == BodyFraming::none || state.message_complete) return BodyStatus::complete;
    if (state.paused) {
        llhttp_resume(&state.parser);
        state.paused = false;
    }
    if (size == 0) return BodyStatus::more;
    state.pieces = &pieces;
    const llhttp_errno_t error = llhttp_execute(&state.parser, data, size);
    state.pieces = nullptr;
    if (error == HPE_OK) {
        consumed = size;
        return BodyStatus::more;
    }
    if (error == HPE_PAUSED && state.message_complete) {
        state.paused = true;
        consumed = static_cast<size_t>(llhttp_get_error_pos(&state.parser) - data);
        return BodyStatus::complete;
    }
    return BodyStatus::invalid;
}

BodyStatus HttpParser::finish_body() {
    State& state = *m_state;
    if (m_head.framing == BodyFraming::none || state.message_complete) return BodyStatus::complete;
    if (m_head.framing != BodyFraming::until_close) return BodyStatus::invalid;
    if (state.paused) {
        llhttp_resume(&state.parser);
        state.paused = false;
    }
    const llhttp_errno_t error = llhttp_finish(&state.parser);
    return (error == HPE_OK || error == HPE_PAUSED) && state.message_complete ? BodyStatus::complete : BodyStatus::invalid;
}

} // namespace wr::net
