// libFuzzer target for the origin side of the proxy: arbitrary bytes are an origin's answer,
// read by origin::ResponseReader as the proxy reads it (interim heads, the final head, the body),
// fed once whole and once in pieces whose sizes the fuzzer picks. Whatever the bytes:
// - the answer ends at the same byte, with the same head and body, however the bytes arrived;
// - a connection is judged reusable only with nothing unread, never after a HEAD answer, never
//   after a 204/304 that announced a body, never when the origin asked to close;
// - where Boost.Beast's parser (an independent implementation) reads the same bytes as a valid
//   answer, it ends it at the same byte with the same status and body — so a connection wr
//   would reuse is at the message boundary another reader sees too.
// Build and run with `make fuzz` (fuzz/run.sh origin_response).
//
// First input byte: bit 0 the answer is to a HEAD request; the next 8 bytes pick the piece sizes.
#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "origin/response_reader.h"

namespace {

using wr::origin::ResponseReader;
namespace http = boost::beast::http;

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

struct Reading {
    bool ended = false;
    size_t end_offset = 0;   // bytes of the input the answer took
    int status = 0;
    bool head_request = false;
    bool keep_alive = false;
    bool announced_body = false;
    std::string body;
    bool reusable_now = false; // the verdict with what had arrived when the answer ended
    size_t unread_then = 0;
};

// Reads `bytes` the way the proxy does, `piece(i)` bytes arriving at a time.
template <typename Piece> Reading read_answer(const std::string& bytes, bool head_request, Piece piece) {
    Reading reading;
    reading.head_request = head_request;
    ResponseReader reader;
    reader.begin(head_request);
    std::string buffer; // arrived and not consumed
    size_t arrived = 0, consumed_total = 0;
    std::vector<std::string_view> pieces;
    for (int round = 0;; ++round) {
        size_t consumed = 0;
        pieces.clear();
        ResponseReader::Step step = reader.read(buffer.data(), buffer.size(), consumed, pieces);
        if (step == ResponseReader::Step::more) {
            if (arrived == bytes.size()) {
                step = reader.closed();
            } else {
                const size_t take = std::min(bytes.size() - arrived, std::max<size_t>(1, piece(round)));
                buffer.append(bytes, arrived, take);
                arrived += take;
                continue;
            }
        }
        for (const std::string_view text : pieces) reading.body.append(text);
        buffer.erase(0, consumed);
        consumed_total += consumed;
        if (step == ResponseReader::Step::head) {
            reading.status = reader.head().status;
            reading.keep_alive = reader.head().keep_alive;
            reading.announced_body = reader.head().content_length > 0 || !reader.head().find("transfer-encoding").empty();
        }
        if (step == ResponseReader::Step::end) {
            reading.ended = true;
            reading.end_offset = consumed_total;
            reading.unread_then = buffer.size();
            reading.reusable_now = reader.reusable(buffer.size());
            check(!reader.reusable(buffer.size() + 1), "never reusable with a byte unread");
            return reading;
        }
        if (step == ResponseReader::Step::invalid) return reading;
    }
}

// The same bytes through Beast: 1xx answers first, then the final one. False when Beast refuses them.
bool beast_reads(const std::string& bytes, bool head_request, size_t& end_offset, int& status, std::string& body) {
    size_t offset = 0;
    while (true) {
        http::response_parser<http::string_body> parser;
        parser.header_limit(64 * 1024);
        parser.body_limit(std::uint64_t{1} << 40);
        parser.eager(true);
        if (head_request) parser.skip(true);
        boost::beast::error_code ec;
        while (!parser.is_done()) {
            if (offset == bytes.size()) {
                ec = {};
                parser.put_eof(ec);
                if (ec) return false;
                break;
            }
            const size_t used = parser.put(boost::asio::buffer(bytes.data() + offset, bytes.size() - offset), ec);
            offset += used;
            if (ec == http::error::need_more) {
                if (used > 0) continue;
                // Beast had every remaining byte and wants more: only the end of the stream is left.
                ec = {};
                parser.put_eof(ec);
                if (ec) return false;
                break;
            }
            if (ec) return false;
        }
        const int code = static_cast<int>(parser.get().result_int());
        if (code >= 100 && code < 200 && code != 101) continue;
        end_offset = offset;
        status = code;
        body = parser.get().body();
        return true;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 9) return 0;
    const bool head_request = (data[0] & 1) != 0;
    const uint8_t* sizes = data + 1;
    const std::string bytes(reinterpret_cast<const char*>(data + 9), size - 9);

    const Reading whole = read_answer(bytes, head_request, [&](int) { return bytes.size(); });
    const Reading pieces = read_answer(bytes, head_request, [&](int round) { return static_cast<size_t>(sizes[round % 8] % 64); });

    check(whole.ended == pieces.ended, "the answer ends however its bytes arrive");
    if (!whole.ended) return 0;
    check(whole.end_offset == pieces.end_offset, "at the same byte");
    check(whole.status == pieces.status, "with the same status");
    check(whole.body == pieces.body, "and the same body");
    // Whole, everything had arrived: the verdict is the connection's, and a piecewise reader
    // that saw less at the end must not be more willing.
    if (pieces.reusable_now) check(whole.reusable_now || pieces.unread_then + (bytes.size() - pieces.end_offset - pieces.unread_then) > 0,
                                   "a piecewise verdict never exceeds the whole one");
    if (whole.reusable_now) {
        check(whole.unread_then == 0 && whole.end_offset == bytes.size(), "reusable: nothing unread");
        check(!whole.head_request, "never after a HEAD answer");
        check(whole.keep_alive, "never when the origin asked to close");
        check(!((whole.status == 204 || whole.status == 304) && whole.announced_body), "never after a 204/304 that announced a body");
        size_t beast_end = 0;
        int beast_status = 0;
        std::string beast_body;
        if (beast_reads(bytes, head_request, beast_end, beast_status, beast_body)) {
            check(beast_end == whole.end_offset, "Beast ends the answer at the same byte");
            check(beast_status == whole.status, "Beast reads the same status");
            check(beast_body == whole.body, "Beast reads the same body");
        }
    }
    return 0;
}
