// The edge threads' sweepers.
#include "net/connection_watch.h"

namespace wr::net {

bool ConnectionWatches::shed_oldest_idle(Shed how) {
    ConnectionWatch* oldest = m_idle.front();
    if (!oldest) return false;
    set_idle(*oldest, false);
    if (oldest->goes_away && how == Shed::saying_so) {
        oldest->expire();
        return true;
    }
    // Closed once its read ends, on this thread.
    error_code ignored;
    if (oldest->visitor) {
        oldest->visitor->cancel(ignored);
        oldest->visitor->shutdown(tcp::socket::shutdown_both, ignored);
    }
    return true;
}

void ConnectionWatches::sweep(SteadyTime now) {
    for (ConnectionWatch* watch = m_all.front(); watch; watch = watch->all_next)
        if (!watch->expired && watch->past_deadline(now)) watch->expire();
}

Task<> ConnectionWatches::sweep_forever() {
    Timer timer(co_await asio::this_coro::executor);
    while (true) {
        timer.expires_after(k_sweep_interval);
        error_code ec;
        co_await timer.async_wait(awaitable(ec));
        if (ec) co_return;
        sweep(std::chrono::steady_clock::now());
    }
}

} // namespace wr::net
