#pragma once
// The admin listener's open connections, each with what it is waiting for and until when. A
// connection waiting on its client — idle between requests, or in a head or body that has not
// arrived — has a deadline the sweeper enforces, and is the first to go when the connection cap
// needs room: the longest idle first, then the one that has been reading longest. A connection
// whose request is being answered waits on wr and is never shed. Touched by the I/O thread only.
#include <chrono>
#include <cstddef>

#include "net/asio.h"
#include "net/connection_watch.h"

namespace wr::api {

class AdminConnections {
public:
    enum class Phase {
        idle,    // between requests, nothing buffered
        reading, // a TLS handshake, a head or a body on its way in, or a body waiting for memory
        busy,    // being answered, or its answer being written
        closing, // shed: its socket is cancelled, the coroutine is ending
    };

    struct Entry {
        net::Socket* socket = nullptr;
        net::Timer* timer = nullptr; // what it waits on besides its socket, if anything: cancelled with it
        Phase phase = Phase::busy;
        net::SteadyTime deadline = net::SteadyTime::max();
        bool expired = false; // the deadline passed and the socket's operations were cancelled

        Entry* all_prev = nullptr;
        Entry* all_next = nullptr;
        Entry* phase_prev = nullptr;
        Entry* phase_next = nullptr;
    };

    // Registers a connection for its lifetime (see Registration).
    void add(Entry& entry);
    void remove(Entry& entry);
    // Connections open and not shed (a shed one is gone once its coroutine notices).
    size_t size() const { return m_size - m_closing; }

    static constexpr std::chrono::steady_clock::duration k_no_deadline = std::chrono::steady_clock::duration::max();

    // Moves a connection to `phase`, which must end within `timeout`.
    void enter(Entry& entry, Phase phase, std::chrono::steady_clock::duration timeout);

    // Closes the connection that has waited longest on its client; false when none waits on its client.
    bool shed_one();
    // Cancels the socket of every connection past its deadline.
    void sweep(net::SteadyTime now);
    // Runs sweep() every `interval` until the io_context stops.
    net::Task<> sweep_forever(std::chrono::milliseconds interval);

    // Adds an entry for as long as it lives.
    class Registration {
    public:
        Registration(AdminConnections& table, Entry& entry) : m_table(table), m_entry(entry) { m_table.add(m_entry); }
        ~Registration() { m_table.remove(m_entry); }
        Registration(const Registration&) = delete;
        Registration& operator=(const Registration&) = delete;

    private:
        AdminConnections& m_table;
        Entry& m_entry;
    };

private:
    using AllList = net::IntrusiveList<Entry, &Entry::all_prev, &Entry::all_next>;
    using PhaseList = net::IntrusiveList<Entry, &Entry::phase_prev, &Entry::phase_next>;

    PhaseList* list_of(Phase phase);

    AllList m_all;
    PhaseList m_idle;
    PhaseList m_reading;
    size_t m_size = 0;
    size_t m_closing = 0;
};

} // namespace wr::api
