// Reservations of the admin listener's body budget, first come, first served.
#include "api/body_budget.h"

#include <algorithm>

namespace wr::api {

net::Task<bool> BodyBudget::reserve(size_t bytes, net::Timer& timer) {
    if (m_waiting.empty() && fits(bytes)) {
        m_in_use += bytes;
        co_return true;
    }
    if (m_closed) co_return false;
    Waiter waiter{bytes, &timer, false};
    m_waiting.push_back(&waiter);
    // Leaves the line however the wait ends (granted, timed out, or the coroutine destroyed).
    struct LeaveLine {
        BodyBudget& budget;
        Waiter& waiter;
        ~LeaveLine() {
            const auto it = std::find(budget.m_waiting.begin(), budget.m_waiting.end(), &waiter);
            if (it == budget.m_waiting.end()) return;
            const bool first = it == budget.m_waiting.begin();
            budget.m_waiting.erase(it);
            // The first in line gave up: those behind it may fit now.
            if (first && !budget.m_closed) budget.grant_waiting();
        }
    } leave{*this, waiter};
    error_code ec;
    co_await timer.async_wait(net::awaitable(ec));
    co_return waiter.granted;
}

void BodyBudget::release(size_t bytes) {
    m_in_use -= std::min(bytes, m_in_use);
    if (!m_closed) grant_waiting();
}

void BodyBudget::grant_waiting() {
    while (!m_waiting.empty() && fits(m_waiting.front()->bytes)) {
        Waiter* first = m_waiting.front();
        m_waiting.pop_front();
        first->granted = true;
        m_in_use += first->bytes;
        first->timer->cancel();
    }
}

} // namespace wr::api
