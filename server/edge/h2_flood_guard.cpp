// Counts HTTP/2 control frames per connection and second (edge/h2_flood_guard.h).
#include "edge/h2_flood_guard.h"

namespace wr::edge {

std::string_view H2FloodGuard::what(H2ControlFrame kind) {
    switch (kind) {
    case H2ControlFrame::reset: return "reset streams";
    case H2ControlFrame::settings: return "sent SETTINGS frames";
    case H2ControlFrame::ping: return "sent PING frames";
    case H2ControlFrame::priority: return "sent PRIORITY frames";
    }
    return "sent control frames";
}

bool H2FloodGuard::admit(H2ControlFrame kind, TimePoint now) {
    Window& window = m_windows[static_cast<size_t>(kind)];
    if (window.count == 0 || now - window.start >= std::chrono::seconds{1}) {
        window.start = now;
        window.count = 0;
    }
    ++window.count;
    return window.count <= bound(kind);
}

} // namespace wr::edge
