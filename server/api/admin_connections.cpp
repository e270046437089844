// Deadlines and shedding of the admin listener's connections.
#include "api/admin_connections.h"

namespace wr::api {

AdminConnections::PhaseList* AdminConnections::list_of(Phase phase) {
    if (phase == Phase::idle) return &m_idle;
    if (phase == Phase::reading) return &m_reading;
    return nullptr;
}

void AdminConnections::add(Entry& entry) {
    m_all.push_back(entry);
    ++m_size;
    if (PhaseList* list = list_of(entry.phase)) list->push_back(entry);
}

void AdminConnections::remove(Entry& entry) {
    if (PhaseList* list = list_of(entry.phase)) list->remove(entry);
    if (entry.phase == Phase::closing) --m_closing;
    m_all.remove(entry);
    --m_size;
}

void AdminConnections::enter(Entry& entry, Phase phase, std::chrono::steady_clock::duration timeout) {
    if (entry.phase == Phase::closing) return; // shed: it only has to notice
    if (entry.phase != phase) {
        if (PhaseList* list = list_of(entry.phase)) list->remove(entry);
        entry.phase = phase;
        if (PhaseList* list = list_of(phase)) list->push_back(entry);
    }
    entry.deadline = timeout == k_no_deadline ? net::SteadyTime::max() : std::chrono::steady_clock::now() + timeout;
    entry.expired = false;
}

bool AdminConnections::shed_one() {
    Entry* oldest = m_idle.front();
    if (!oldest) oldest = m_reading.front();
    if (!oldest) return false;
    list_of(oldest->phase)->remove(*oldest);
    oldest->phase = Phase::closing;
    ++m_closing;
    oldest->deadline = net::SteadyTime::max();
    // Its pending read ends with an error and the coroutine closes it, on this thread.
    error_code ignored;
    oldest->socket->cancel(ignored);
    oldest->socket->shutdown(tcp::socket::shutdown_both, ignored);
    if (oldest->timer) oldest->timer->cancel();
    return true;
}

void AdminConnections::sweep(net::SteadyTime now) {
    for (Entry* entry = m_all.front(); entry; entry = entry->all_next) {
        if (entry->expired || entry->deadline > now) continue;
        entry->expired = true;
        error_code ignored;
        entry->socket->cancel(ignored);
        if (entry->timer) entry->timer->cancel();
    }
}

net::Task<> AdminConnections::sweep_forever(std::chrono::milliseconds interval) {
    net::Timer timer(co_await asio::this_coro::executor);
    while (true) {
        timer.expires_after(interval);
        error_code ec;
        co_await timer.async_wait(net::awaitable(ec));
        if (ec) co_return;
        sweep(std::chrono::steady_clock::now());
    }
}

} // namespace wr::api
