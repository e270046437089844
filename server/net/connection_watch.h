#pragma once
// One coarse deadline per connection instead of a timer re-armed for every read and write: a
// connection stores when it must have made progress (a plain time point, set a few times per
// request), and its thread's sweeper looks at every connection a few times a second and cancels
// the sockets of those past their deadline. The watch also carries the connection's place in
// the thread's list of idle keep-alive connections, oldest first, from which the connection cap
// sheds (issue #16). Everything here is touched by one edge thread only.
#include <atomic>
#include <chrono>

#include "net/asio.h"

namespace wr::net {

using SteadyTime = std::chrono::steady_clock::time_point;

// A doubly linked list through members of its elements: linking and unlinking allocate nothing.
template <typename T, T* T::*Prev, T* T::*Next> class IntrusiveList {
public:
    bool empty() const { return m_head == nullptr; }
    T* front() const { return m_head; }
    void push_back(T& item) {
        item.*Prev = m_tail;
        item.*Next = nullptr;
        (m_tail ? m_tail->*Next : m_head) = &item;
        m_tail = &item;
    }
    void remove(T& item) {
        (item.*Prev ? item.*Prev->*Next : m_head) = item.*Next;
        (item.*Next ? item.*Next->*Prev : m_tail) = item.*Prev;
        item.*Prev = item.*Next = nullptr;
    }

private:
    T* m_head = nullptr;
    T* m_tail = nullptr;
};

struct ConnectionWatch {
    SteadyTime deadline = SteadyTime::max();
    bool expired = false;      // the deadline passed and the sockets were cancelled
    Socket* visitor = nullptr; // cancelled (and shut down) when the deadline passes
    Socket* origin = nullptr;  // the origin connection in use, if any: cancelled too
    // Shed as if past its deadline (expired, its reads cancelled, the socket left open): an
    // HTTP/2 connection then says GOAWAY before it closes, as at its idle timeout.
    bool goes_away = false;
    // A wait for an origin connection under a zone's cap (OriginPool::wait_for_cap), while it
    // lasts. A request that is gone meanwhile (an HTTP/2 stream the visitor reset) abandons it:
    // its place in the queue goes to the next visitor at once, and no connection is opened for it.
    Timer* queue_wait = nullptr;
    bool abandoned = false;
    void abandon() {
        abandoned = true;
        if (queue_wait) queue_wait->cancel();
    }

    // While what the connection holds is wanted by others — `*contended` above zero: requests
    // waiting for a connection under the zone's cap, while it writes an answer to a visitor who
    // does not take it — the deadline is `contended_deadline` if that is sooner. Set after a new
    // deadline, which clears it.
    const std::atomic<int64_t>* contended = nullptr;
    SteadyTime contended_deadline = SteadyTime::max();
    void expire_sooner_while(const std::atomic<int64_t>& wanted, SteadyTime when) {
        contended = &wanted;
        contended_deadline = when;
    }
    bool past_deadline(SteadyTime now) const {
        return deadline <= now || (contended && contended_deadline <= now && contended->load(std::memory_order_relaxed) > 0);
    }

    // A new deadline (which also clears `expired`: read it right after the operation that failed).
    void expire_in(std::chrono::steady_clock::duration timeout) {
        deadline = std::chrono::steady_clock::now() + timeout;
        expired = false;
        contended = nullptr;
    }
    void expire_at(SteadyTime when) {
        deadline = when;
        expired = false;
        contended = nullptr;
    }
    void expire_never() {
        deadline = SteadyTime::max();
        expired = false;
        contended = nullptr;
    }
    // The deadline passed: every pending operation on the sockets ends with operation_aborted.
    void expire() {
        expired = true;
        error_code ignored;
        if (origin) origin->cancel(ignored);
        if (visitor) visitor->cancel(ignored);
    }

    // Links of the thread's lists.
    ConnectionWatch* all_prev = nullptr;
    ConnectionWatch* all_next = nullptr;
    ConnectionWatch* idle_prev = nullptr;
    ConnectionWatch* idle_next = nullptr;
    bool idle = false;
};

using WatchList = IntrusiveList<ConnectionWatch, &ConnectionWatch::all_prev, &ConnectionWatch::all_next>;
using IdleList = IntrusiveList<ConnectionWatch, &ConnectionWatch::idle_prev, &ConnectionWatch::idle_next>;

// A thread's connections: the deadlines the sweeper checks, and the idle ones the cap sheds.
class ConnectionWatches {
public:
    static constexpr std::chrono::milliseconds k_sweep_interval{250};

    void add(ConnectionWatch& watch) { m_all.push_back(watch); }
    void remove(ConnectionWatch& watch) {
        set_idle(watch, false);
        m_all.remove(watch);
    }
    // Between requests, with nothing buffered, a connection is idle: the first to go under pressure.
    void set_idle(ConnectionWatch& watch, bool idle) {
        if (watch.idle == idle) return;
        watch.idle = idle;
        if (idle) m_idle.push_back(watch);
        else m_idle.remove(watch);
    }
    // Closes the oldest idle connection; false when none is idle. `saying_so`: one that can
    // (HTTP/2) says GOAWAY first, and its descriptor is free once the client has read it; `at_once`
    // frees it now (the process is out of descriptors).
    enum class Shed { saying_so, at_once };
    bool shed_oldest_idle(Shed how = Shed::saying_so);
    // Expires every connection whose deadline is at or before `now`.
    void sweep(SteadyTime now);
    // Runs sweep() every k_sweep_interval until the io_context stops.
    Task<> sweep_forever();

private:
    WatchList m_all;
    IdleList m_idle;
};

} // namespace wr::net
