#pragma once
// How many of HTTP/2's control frames a client may send in one second before its connection ends
// with GOAWAY(ENHANCE_YOUR_CALM). Each of these frames costs the edge work and gives the client
// nothing it needs many of: RST_STREAM (the "rapid reset" attack, CVE-2023-44487), SETTINGS and
// PING (each answered with an acknowledgement; CVE-2019-9512, 9515), PRIORITY (each reshapes the
// priority tree; CVE-2019-9513). A browser sends a handful on a connection; the bounds are far
// above that and far below what costs the edge. Acknowledgements are not counted: they answer the
// edge's own frames. Pure: the caller passes the time.
#include <array>
#include <chrono>
#include <string_view>

namespace wr::edge {

enum class H2ControlFrame { reset, settings, ping, priority };

class H2FloodGuard {
public:
    using TimePoint = std::chrono::steady_clock::time_point;

    // The most frames of `kind` a connection may send in one second.
    static constexpr int bound(H2ControlFrame kind) {
        switch (kind) {
        case H2ControlFrame::reset: return 200;
        case H2ControlFrame::settings: return 100;
        case H2ControlFrame::ping: return 100;
        case H2ControlFrame::priority: return 1000;
        }
        return 0;
    }
    // What a client that passed the bound did, for the log: "reset streams", "sent PING frames"…
    static std::string_view what(H2ControlFrame kind);

    // Counts one frame of `kind` arrived at `now`: false once the second it falls in holds more
    // than its bound. A second starts with the first frame after the last one ended.
    bool admit(H2ControlFrame kind, TimePoint now);
    // Whether admit() just refused the first time in the current second (the moment to log and end
    // the connection; later frames of that second are refused too, quietly).
    bool just_passed(H2ControlFrame kind) const { return window(kind).count == bound(kind) + 1; }

private:
    struct Window {
        TimePoint start{};
        int count = 0;
    };
    const Window& window(H2ControlFrame kind) const { return m_windows[static_cast<size_t>(kind)]; }

    std::array<Window, 4> m_windows{};
};

} // namespace wr::edge
