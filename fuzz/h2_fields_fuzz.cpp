// libFuzzer target for the edge's HTTP/2 glue: arbitrary bytes are read by an nghttp2 server
// session set up as the edge sets it up (edge/h2_connection.cpp: the same settings, options and
// header callbacks), every request block is kept by RequestFields as the edge keeps it, read as
// an HTTP/1.1 head and rewritten for the origin (edge/forward_head). The rewritten head must be
// well-formed HTTP/1.1 that the strict parser reads again, with one Host and no header smuggled
// in through a value; a block over the limits must be flagged, never kept. The tail of the input
// after a marker line is read as an origin's answer and turned into HTTP/2 fields, which must be lowercase and
// free of connection-specific headers. Build and run with `make fuzz` (fuzz/run.sh h2_fields).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include <nghttp2/nghttp2.h>

#include "edge/forward_head.h"
#include "edge/h2_fields.h"
#include "net/http_parser.h"
#include "room_cookie.h"

namespace {

using namespace wr::edge;

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

struct Session {
    std::map<int32_t, RequestFields> streams;
    size_t requests = 0;
};

int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
        static_cast<Session*>(user)->streams[frame->hd.stream_id].clear();
    return 0;
}

int header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t name_size, const uint8_t* value, size_t value_size,
           uint8_t, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    auto& streams = static_cast<Session*>(user)->streams;
    const auto found = streams.find(frame->hd.stream_id);
    if (found == streams.end()) return 0;
    found->second.add(std::string_view(reinterpret_cast<const char*>(name), name_size),
                      std::string_view(reinterpret_cast<const char*>(value), value_size));
    return 0;
}

void check_forwarded(const RequestFields& fields, bool end_stream) {
    wr::net::MessageHead head;
    fields.build(head, end_stream);
    check(!head.method.empty(), "a request block nghttp2 accepted has a method");
    if (head.method == "CONNECT") return; // refused by the edge before anything is forwarded
    std::string out;
    write_forwarded_request(out, head,
                            ForwardedRequest{.target = head.target, .client = "192.0.2.1", .https = true, .room_cookie = "__cfwaitingroom",
                                             .framing = head.framing, .content_length = head.content_length, .request_id = "id"});
    check(out.size() >= 4 && out.compare(out.size() - 4, 4, "\r\n\r\n") == 0, "the head ends with one blank line");
    check(out.find("\r\n\r\n") == out.size() - 4, "no blank line inside the head");
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '\n') check(i > 0 && out[i - 1] == '\r', "no bare LF");
        if (out[i] == '\r') check(i + 1 < out.size() && out[i + 1] == '\n', "no bare CR");
    }
    wr::net::HttpParser again(wr::net::HttpParser::Kind::request);
    again.begin();
    if (again.parse_head(out.data(), out.size()) != wr::net::HeadStatus::complete) return; // a target llhttp refuses: the origin would too
    check(again.head().count("host") <= 1, "one Host at most");
    check(again.head().count("x-request-id") == 1, "the edge's request id, once");
    check(!wr::fuzz::carries_cookie(again.head(), "__cfwaitingroom"), "the room's cookie stays with the edge");
}

int frame_received(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    Session& session = *static_cast<Session*>(user);
    const auto found = session.streams.find(frame->hd.stream_id);
    if (found == session.streams.end()) return 0;
    ++session.requests;
    if (!found->second.too_large()) check_forwarded(found->second, frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
    session.streams.erase(found);
    return 0;
}

void check_answer(std::string_view bytes) {
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::response);
    parser.begin();
    if (parser.parse_head(bytes.data(), bytes.size()) != wr::net::HeadStatus::complete) return;
    ResponseFields fields;
    origin_fields(fields, parser.head(), "__cfwaitingroom=x", parser.head().framing == wr::net::BodyFraming::length);
    const nghttp2_nv* nv = fields.finish(true);
    for (size_t i = 0; i < fields.size(); ++i) {
        const std::string_view name(reinterpret_cast<const char*>(nv[i].name), nv[i].namelen);
        for (const char c : name) check(!(c >= 'A' && c <= 'Z'), "HTTP/2 names are lowercase");
        for (const char* gone : {"connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "cf-waiting-room-command"})
            check(name != gone, "no connection-specific header");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Session state;
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, frame_received);
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    nghttp2_option_set_no_auto_window_update(option, 1);
    nghttp2_option_set_max_continuations(option, 8);
    nghttp2_option_set_max_outbound_ack(option, 1000);
    nghttp2_option_set_max_settings(option, 32);
    nghttp2_session* session = nullptr;
    nghttp2_session_server_new2(&session, callbacks, &state, option);
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
                                               {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 65535},
                                               {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, RequestFields::k_max_list_size}};
    nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings, 3);
    // The frames, in reads of varying size as the network would cut them; the answer after a marker.
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view k_marker = "\nANSWER\n";
    const size_t split = input.find(k_marker);
    const std::string_view frames = input.substr(0, split);
    size_t at = 0;
    while (at < frames.size()) {
        const size_t piece = std::min<size_t>(frames.size() - at, 1 + static_cast<unsigned char>(frames[at]) * 7);
        if (nghttp2_session_mem_recv(session, reinterpret_cast<const uint8_t*>(frames.data() + at), piece) < 0) break;
        const uint8_t* out = nullptr;
        while (nghttp2_session_mem_send(session, &out) > 0) {}
        at += piece;
    }
    nghttp2_session_del(session);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
    if (split != std::string_view::npos) check_answer(input.substr(split + k_marker.size()));
    return 0;
}
