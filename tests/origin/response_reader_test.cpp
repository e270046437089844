// Reading an origin's answer as the proxy passes it on, and the verdict on whether its
// connection may carry the next visitor's request.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "origin/response_reader.h"

using wr::origin::ResponseReader;
using Step = ResponseReader::Step;

namespace {

struct Read {
    std::vector<Step> steps;
    std::vector<int> statuses; // of every head read, interim ones included
    std::string body;
    size_t unread = 0;
    bool reusable = false;
};

// Feeds all of `bytes` at once, then the end of the stream when `closes`.
Read read_all(const std::string& bytes, bool head_request = false, bool closes = false) {
    ResponseReader reader;
    reader.begin(head_request);
    Read read;
    std::string buffer = bytes;
    std::vector<std::string_view> pieces;
    while (true) {
        size_t consumed = 0;
        pieces.clear();
        Step step = reader.read(buffer.data(), buffer.size(), consumed, pieces);
        if (step == Step::more && closes) step = reader.closed();
        read.steps.push_back(step);
        if (step == Step::interim || step == Step::head) read.statuses.push_back(reader.head().status);
        for (const std::string_view piece : pieces) read.body.append(piece);
        buffer.erase(0, consumed);
        if (step == Step::end || step == Step::invalid || step == Step::more) break;
    }
    read.unread = buffer.size();
    read.reusable = reader.reusable(buffer.size());
    return read;
}

} // namespace

TEST_CASE("origin::ResponseReader reuses a connection only at a clean boundary with nothing unread") {
    struct Case {
        const char* name;
        std::string bytes;
        bool head_request;
        bool reusable;
    };
    const Case cases[] = {
        {"a length-framed answer", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, true},
        {"a chunked answer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false, true},
        {"an empty answer", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, true},
        {"a 204 without a length", "HTTP/1.1 204 No Content\r\n\r\n", false, true},
        {"a 304 without a length", "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", false, true},
        {"bytes behind the body", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n", false, false},
        {"the origin asked to close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", false, false},
        {"HTTP/1.0 without keep-alive", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false, false},
        {"HTTP/1.0 with keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", false, true},
        {"an answer to HEAD that announces a body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", true, false},
        {"an answer to HEAD that announces none", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true, false},
        {"a 204 that announces a body", "HTTP/1.1 204 No Content\r\nContent-Length: 14\r\n\r\n", false, false},
        {"a 304 that announces a body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 14\r\n\r\n", false, false},
        {"a 304 with a coding", "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", false, false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const Read read = read_all(c.bytes, c.head_request);
        REQUIRE(read.steps.back() == Step::end);
        CHECK(read.reusable == c.reusable);
    }
}

TEST_CASE("origin::ResponseReader passes interim answers on before the final one, whose body has no 1xx in it") {
    const Read read = read_all("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                               "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    CHECK(read.statuses == std::vector<int>{100, 103, 200});
    CHECK(read.body == "ok");
    CHECK(read.reusable);
}

TEST_CASE("origin::ResponseReader takes k_max_interim interim answers, and refuses an origin that sends them without end") {
    std::string hints;
    for (int i = 0; i < ResponseReader::k_max_interim; ++i) hints += "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n";
    const std::string final_answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    const Read bounded = read_all(hints + final_answer);
    CHECK(bounded.statuses.size() == ResponseReader::k_max_interim + 1);
    CHECK(bounded.steps.back() == Step::end);
    CHECK(bounded.body == "ok");
    const Read endless = read_all(hints + "HTTP/1.1 100 Continue\r\n\r\n" + final_answer);
    CHECK(endless.statuses.size() == ResponseReader::k_max_interim);
    CHECK(endless.steps.back() == Step::invalid);
    CHECK_FALSE(endless.reusable);
}

TEST_CASE("origin::ResponseReader ends a body that runs to the close only at the close, and never reuses its connection") {
    const Read open = read_all("HTTP/1.1 200 OK\r\n\r\nto the close");
    CHECK(open.steps.back() == Step::more);
    CHECK(open.body == "to the close");
    const Read closed = read_all("HTTP/1.1 200 OK\r\n\r\nto the close", false, true);
    CHECK(closed.steps.back() == Step::end);
    CHECK_FALSE(closed.reusable);
    // A length-framed body cut short by the close is not an answer.
    CHECK(read_all("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", false, true).steps.back() == Step::invalid);
}

TEST_CASE("origin::ResponseReader refuses what is not an answer, and a head larger than wr reads") {
    CHECK(read_all("garbage\r\n\r\n").steps.back() == Step::invalid);
    CHECK_FALSE(read_all("garbage\r\n\r\n").reusable);
    const std::string huge = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(wr::net::k_max_response_head, 'a') + "\r\n\r\n";
    CHECK(read_all(huge).steps.back() == Step::invalid);
    // A status is three digits, the first 1 to 5: the edges of that range, either side.
    for (const std::string status : {"000", "099", "600", "999"})
        CHECK_MESSAGE(read_all("HTTP/1.1 " + status + " X\r\nContent-Length: 2\r\n\r\nok").steps.back() == Step::invalid, status);
    CHECK(read_all("HTTP/1.1 100 X\r\n\r\nHTTP/1.1 599 X\r\nContent-Length: 2\r\n\r\nok").statuses == std::vector<int>{100, 599});
}
