#pragma once
// A zone's cap on connections to its origin, shared by the node's edge threads. It caps what the
// origin sees — open connections, idle pooled ones included — as HAProxy's `server … maxconn`
// caps what a server is sent. An open connection holds a slot (a CapSlot) from before its
// connect until it closes. A request that needs a new connection while every slot is taken waits
// in wr, in order of arrival, without a thread of its own (one timer on its edge thread), until
// a connection or a slot is handed to it, or its wait times out (its visitor then gets a 503).
//
// When an exchange ends with a connection fit for reuse and requests are waiting, the
// connection goes to the oldest waiter on its own thread (no new connect) — when that waiter
// arrived no later than k_handover_slack after the oldest waiter on any thread. Otherwise the
// connection closes and its slot goes to the oldest waiter, on whichever thread: connections
// stay where they are busy, and order across threads is kept to within the slack. Idle
// connections that a quiet thread keeps in its pool are closed when another thread waits
// (OriginPool::close_idle), so a slot never sits idle while someone waits.
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "net/asio.h"
#include "net/connection_watch.h"

namespace wr::origin {

class OriginConnection;

class ConnectionCap : public std::enable_shared_from_this<ConnectionCap> {
public:
    static constexpr std::chrono::milliseconds k_handover_slack{5};
    // How long a visitor may leave its answer untaken while others wait under the cap, before its
    // exchange ends and its origin connection goes to them (the edge's HTTP/1.1 and HTTP/2 paths).
    static constexpr std::chrono::seconds k_stall_while_others_wait{5};

    // A request waiting for a connection, on the edge thread `thread`. Shared, so that a wake-up
    // posted from another thread can tell whether the waiter is still there.
    struct Waiter {
        Waiter(net::Executor executor, size_t thread_index, net::SteadyTime when);
        ~Waiter(); // out of line: OriginConnection is complete only there
        net::Timer timer;
        size_t thread;
        net::SteadyTime arrival;
        // Under the cap's lock: what it was given, once `done`.
        bool done = false;
        bool granted_slot = false;                     // it may open a connection of its own
        std::unique_ptr<OriginConnection> connection;  // or it takes this one (same thread only)
    };

    struct Figures {
        int64_t limit = 0;
        int64_t open = 0;      // connections open (or being opened) under the cap
        int64_t idle = 0;      // of which, sitting in a pool
        int64_t waiting = 0;   // requests waiting for one
        int64_t most_open = 0; // the most ever open at once
        uint64_t waited = 0;   // requests that had to wait
        uint64_t timed_out = 0;
    };

    explicit ConnectionCap(int64_t limit = 0);
    ~ConnectionCap();
    ConnectionCap(const ConnectionCap&) = delete;
    ConnectionCap& operator=(const ConnectionCap&) = delete;

    // 0: unlimited (connections are still counted, for /metrics). Raising it lets waiters in.
    void set_limit(int64_t limit);
    int64_t limit() const;
    Figures figures() const;
    bool has_waiters() const { return m_waiting.load(std::memory_order_relaxed) > 0; }
    // The count has_waiters() reads, for a ConnectionWatch to look at (net/ knows no caps).
    const std::atomic<int64_t>& waiting_count() const { return m_waiting; }

    // A slot for a new connection, at once, when one is free and nobody waits.
    bool try_open();
    // Joins the queue (after try_open failed). Wait on the waiter's timer, then call give_up.
    std::shared_ptr<Waiter> wait(net::Executor executor, size_t thread, net::SteadyTime now);
    // The waiter stops waiting (its time is up — `timed_out` — or its request is gone): true when
    // it was still in the queue and has left it; false when something was handed to it first
    // (read its fields).
    bool give_up(Waiter& waiter, bool timed_out);
    // A connection that ended an exchange fit for reuse, on edge thread `thread`: handed to a
    // waiter on that thread (nullptr returned; its timer is cancelled), or returned to be pooled
    // (`close` false) or closed (`close` true: its slot then goes to the oldest waiter).
    std::unique_ptr<OriginConnection> hand_over(std::unique_ptr<OriginConnection> connection, size_t thread, net::SteadyTime now,
                                                bool& close);
    // Pools report the connections they keep idle, so that /metrics can show them.
    void count_idle(int64_t change);

    // An open connection closed (CapSlot's destructor): its slot goes to the oldest waiter.
    void closed();

private:
    bool room_for_one_locked() const { return m_limit == 0 || m_open < m_limit; }
    // The oldest waiter's queue, or nullptr when nobody waits.
    std::deque<std::shared_ptr<Waiter>>* oldest_locked();
    void grant_slots_locked();
    void remember_open_locked();

    mutable std::mutex m_mutex;
    int64_t m_limit = 0;
    int64_t m_open = 0;
    int64_t m_most_open = 0;
    uint64_t m_waited = 0;
    uint64_t m_timed_out = 0;
    std::atomic<int64_t> m_idle{0};
    std::atomic<int64_t> m_waiting{0};
    std::vector<std::deque<std::shared_ptr<Waiter>>> m_queues; // one per edge thread, each in arrival order
};

// A connection's slot under its zone's cap, given back when the connection closes.
class CapSlot {
public:
    CapSlot() = default;
    explicit CapSlot(std::shared_ptr<ConnectionCap> cap) : m_cap(std::move(cap)) {}
    ~CapSlot() {
        if (m_cap) m_cap->closed();
    }
    CapSlot(CapSlot&& other) noexcept = default;
    CapSlot& operator=(CapSlot&& other) noexcept {
        if (this != &other) {
            if (m_cap) m_cap->closed();
            m_cap = std::move(other.m_cap);
        }
        return *this;
    }
    ConnectionCap* cap() const { return m_cap.get(); }
    explicit operator bool() const { return m_cap != nullptr; }

private:
    std::shared_ptr<ConnectionCap> m_cap;
};

} // namespace wr::origin
