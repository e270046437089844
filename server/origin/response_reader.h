#pragma once
// Reads one origin answer out of a connection's buffer the way the proxy passes it on — interim
// (1xx) heads, the final head, then the body as decoded pieces — and judges, once the answer
// has ended, whether the connection is at a message boundary with nothing unread, which is the
// only state in which it may carry another visitor's request. Pure: no I/O; the caller reads
// more bytes when it is asked to, and consumes what it has passed on.
//
// An answer's end is framed as RFC 9112 §6.3 says: HEAD answers and 1xx, 204 and 304 answers
// have no body, whatever their headers announce. Because an origin that announces a body there
// may send it anyway (naive servers do, a little later), such a connection is never reused.
#include <cstddef>
#include <string_view>
#include <vector>

#include "net/http_parser.h"

namespace wr::origin {

class ResponseReader {
public:
    // Interim answers passed on before the final one, at most: an origin that sends 1xx heads
    // without end is invalid (each would go on to the visitor). Browsers see one or two (100,
    // 103 Early Hints).
    static constexpr int k_max_interim = 16;

    enum class Step {
        more,    // the buffer holds no more of the answer: read more (or call closed() at the end of the stream)
        interim, // head() is a 1xx answer (not 101), `consumed` bytes long; the final answer follows
                 // (past k_max_interim of them: invalid)
        head,    // head() is the final answer's head, `consumed` bytes long
        body,    // body pieces were appended to `pieces`; `consumed` bytes of the buffer held them
        end,     // the answer is complete (its last pieces, if any, were appended)
        invalid, // the origin's bytes are not a valid answer: the connection must close
    };

    // Starts reading the answer to a request; `head_request` when it was HEAD.
    void begin(bool head_request);

    // Reads what `data` holds (the connection's unconsumed bytes, from the start of what this
    // answer has not consumed yet). Heads and pieces are views into `data`: pass them on before
    // consuming `consumed` bytes of it.
    Step read(const char* data, size_t size, size_t& consumed, std::vector<std::string_view>& pieces);
    // The origin ended the stream: the end of a body that runs to the close, otherwise invalid.
    Step closed();

    const net::MessageHead& head() const { return m_parser.head(); }
    bool at_end() const { return m_phase == Phase::ended; }

    // Whether the connection may carry another exchange now that the answer has ended, with
    // `unread` bytes received beyond it: only at a clean message boundary with nothing unread,
    // on a connection the origin keeps open, after an answer whose end could not be in doubt.
    bool reusable(size_t unread) const;

private:
    enum class Phase { head, body, ended, failed };
    net::HttpParser m_parser{net::HttpParser::Kind::response};
    Phase m_phase = Phase::head;
    bool m_head_request = false;
    bool m_ended_by_close = false;
    bool m_interim_read = false; // the head read last was interim: the next read starts a new head
    int m_interim_count = 0;
};

} // namespace wr::origin
