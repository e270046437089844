#pragma once
// The bytes of request bodies the admin listener holds at once. A request reserves its body's
// size (a chunked one: the body limit) before the body is read, and gives it back once answered;
// one that does not fit waits, its body left unread in the client's socket, behind those that
// came first. So bodies cost at most the budget in memory however many clients send them.
// Touched by the I/O thread only.
#include <cstddef>
#include <deque>
#include <utility>

#include "net/asio.h"

namespace wr::api {

class BodyBudget {
public:
    explicit BodyBudget(size_t capacity) : m_capacity(capacity) {}

    // Waits until `bytes` fit (a request larger than the whole budget waits until it is the only
    // one), or until `timer` expires or is cancelled: false then. On true, the caller owes
    // release(bytes).
    net::Task<bool> reserve(size_t bytes, net::Timer& timer);
    void release(size_t bytes);
    // Lets no one wait any more (the listener is stopping): releases only count from now on.
    void close() { m_closed = true; }

    size_t capacity() const { return m_capacity; }
    size_t in_use() const { return m_in_use; }

    // Gives the reservation back when the request is done with.
    class Lease {
    public:
        Lease() = default;
        Lease(BodyBudget& budget, size_t bytes) : m_budget(&budget), m_bytes(bytes) {}
        ~Lease() {
            if (m_budget) m_budget->release(m_bytes);
        }
        Lease(Lease&& other) noexcept : m_budget(std::exchange(other.m_budget, nullptr)), m_bytes(other.m_bytes) {}
        Lease& operator=(Lease&& other) noexcept {
            std::swap(m_budget, other.m_budget);
            std::swap(m_bytes, other.m_bytes);
            return *this;
        }

    private:
        BodyBudget* m_budget = nullptr;
        size_t m_bytes = 0;
    };

private:
    struct Waiter {
        size_t bytes = 0;
        net::Timer* timer = nullptr;
        bool granted = false;
    };

    bool fits(size_t bytes) const { return m_in_use == 0 || m_in_use + bytes <= m_capacity; }
    // Grants waiters in order while the first one fits.
    void grant_waiting();

    size_t m_capacity;
    size_t m_in_use = 0;
    bool m_closed = false;
    std::deque<Waiter*> m_waiting;
};

} // namespace wr::api
