// The connection cap's bookkeeping: slots, the waiting queues, and who gets a freed connection.
#include "origin/connection_cap.h"

#include "origin/origin_pool.h"

namespace wr::origin {

ConnectionCap::Waiter::Waiter(net::Executor executor, size_t thread_index, net::SteadyTime when)
    : timer(executor), thread(thread_index), arrival(when) {}

ConnectionCap::Waiter::~Waiter() = default;

ConnectionCap::ConnectionCap(int64_t limit) : m_limit(std::max<int64_t>(0, limit)) {}

ConnectionCap::~ConnectionCap() = default;

void ConnectionCap::set_limit(int64_t limit) {
    const std::lock_guard lock(m_mutex);
    m_limit = std::max<int64_t>(0, limit);
    grant_slots_locked();
}

int64_t ConnectionCap::limit() const {
    const std::lock_guard lock(m_mutex);
    return m_limit;
}

ConnectionCap::Figures ConnectionCap::figures() const {
    const std::lock_guard lock(m_mutex);
    return Figures{.limit = m_limit, .open = m_open, .idle = m_idle.load(std::memory_order_relaxed),
                   .waiting = m_waiting.load(std::memory_order_relaxed), .most_open = m_most_open, .waited = m_waited,
                   .timed_out = m_timed_out};
}

void ConnectionCap::remember_open_locked() {
    ++m_open;
    m_most_open = std::max(m_most_open, m_open);
}

bool ConnectionCap::try_open() {
    const std::lock_guard lock(m_mutex);
    if (m_waiting.load(std::memory_order_relaxed) > 0 || !room_for_one_locked()) return false;
    remember_open_locked();
    return true;
}

std::shared_ptr<ConnectionCap::Waiter> ConnectionCap::wait(net::Executor executor, size_t thread, net::SteadyTime now) {
    auto waiter = std::make_shared<Waiter>(executor, thread, now);
    const std::lock_guard lock(m_mutex);
    if (m_queues.size() <= thread) m_queues.resize(thread + 1);
    m_queues[thread].push_back(waiter);
    m_waiting.fetch_add(1, std::memory_order_relaxed);
    ++m_waited;
    // A slot may have freed between try_open and now.
    grant_slots_locked();
    return waiter;
}

bool ConnectionCap::give_up(Waiter& waiter, bool timed_out) {
    const std::lock_guard lock(m_mutex);
    if (waiter.done) return false;
    auto& queue = m_queues[waiter.thread];
    for (auto it = queue.begin(); it != queue.end(); ++it)
        if (it->get() == &waiter) {
            queue.erase(it);
            break;
        }
    waiter.done = true;
    m_waiting.fetch_sub(1, std::memory_order_relaxed);
    if (timed_out) ++m_timed_out;
    return true;
}

std::deque<std::shared_ptr<ConnectionCap::Waiter>>* ConnectionCap::oldest_locked() {
    std::deque<std::shared_ptr<Waiter>>* oldest = nullptr;
    for (auto& queue : m_queues)
        if (!queue.empty() && (!oldest || queue.front()->arrival < oldest->front()->arrival)) oldest = &queue;
    return oldest;
}

void ConnectionCap::grant_slots_locked() {
    while (room_for_one_locked()) {
        auto* queue = oldest_locked();
        if (!queue) return;
        std::shared_ptr<Waiter> waiter = std::move(queue->front());
        queue->pop_front();
        m_waiting.fetch_sub(1, std::memory_order_relaxed);
        waiter->done = true;
        waiter->granted_slot = true;
        remember_open_locked();
        // Wakes it on its own thread; a waiter that is gone by then needs no waking.
        asio::post(waiter->timer.get_executor(), [weak = std::weak_ptr<Waiter>(waiter)] {
            if (const auto alive = weak.lock()) alive->timer.cancel();
        });
    }
}

std::unique_ptr<OriginConnection> ConnectionCap::hand_over(std::unique_ptr<OriginConnection> connection, size_t thread,
                                                           net::SteadyTime now, bool& close) {
    (void)now;
    close = false;
    const std::lock_guard lock(m_mutex);
    auto* oldest = oldest_locked();
    if (!oldest) return connection; // nobody waits: pool it
    auto* local = m_queues.size() > thread && !m_queues[thread].empty() ? &m_queues[thread] : nullptr;
    if (local && local->front()->arrival <= oldest->front()->arrival + k_handover_slack) {
        std::shared_ptr<Waiter> waiter = std::move(local->front());
        local->pop_front();
        m_waiting.fetch_sub(1, std::memory_order_relaxed);
        waiter->done = true;
        waiter->connection = std::move(connection);
        waiter->timer.cancel(); // on this thread: it resumes once this handler returns
        return nullptr;
    }
    close = true; // its slot goes to the oldest, on another thread
    return connection;
}

void ConnectionCap::count_idle(int64_t change) { m_idle.fetch_add(change, std::memory_order_relaxed); }

void ConnectionCap::closed() {
    const std::lock_guard lock(m_mutex);
    --m_open;
    grant_slots_locked();
}

} // namespace wr::origin
