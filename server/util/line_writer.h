#pragma once
// Writes lines to a file (or stdout) on a thread of its own, for logs that must never slow down
// the threads that produce them (the edge's access log). Producers hand over whole buffers of
// lines with submit(), which takes a mutex only to queue the buffer (and only if it is free at
// once: it never waits); the writer thread writes them out, woken when 256 KiB have gathered and
// otherwise four times a second, so that it costs the producers' core few switches. When the
// file cannot keep up (a slow disk, a full pipe nobody reads), at most `max_pending_bytes` wait,
// and lines beyond that are dropped and counted rather than queued without bound. reopen() (on
// SIGUSR1) makes the writer open the path again, for log rotation.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace wr::util {

struct LineWriterCounters {
    std::atomic<uint64_t> written{0}; // lines written to the file
    std::atomic<uint64_t> dropped{0}; // lines given up: no room to queue them, or the file refused them
};

class LineWriter {
public:
    // `path` "-" is stdout. Opens (creating, appending) the file now; throws naming it if it cannot.
    LineWriter(std::string path, size_t max_pending_bytes, LineWriterCounters& counters);
    ~LineWriter();
    LineWriter(const LineWriter&) = delete;
    LineWriter& operator=(const LineWriter&) = delete;

    void start();
    // Writes what is queued (for up to `patience`, then counts the rest as dropped) and closes.
    void stop(std::chrono::milliseconds patience = std::chrono::milliseconds{2000});

    // Takes `lines` whole lines, the first `size` bytes of `buffer`, and returns true: the string
    // moves to the queue and `buffer` gets one of the writer's spares in its place, with room
    // and any size, its content meaning nothing (the producer writes over it from its start:
    // no byte of it is cleared for nothing). Returns false, leaving `buffer` as it was, when the
    // queue's lock is busy this instant (try again later). Lines that do not fit under the bound
    // are dropped: that also returns true, and `buffer` is the producer's to write over again.
    bool submit(std::string& buffer, size_t size, uint64_t lines);

    // The writer opens the path again before its next write (the old file was rotated away).
    void reopen();

    const std::string& path() const { return m_path; }

private:
    struct Chunk {
        std::string text; // the lines are its first `size` bytes
        size_t size = 0;
        uint64_t lines = 0;
    };
    void run();
    // Writes all of `text` to a pipe, socket or terminal; false when it refused it or stop() ran
    // out of patience.
    bool write_all(std::string_view text);
    // Writes `batch` to a regular file; returns how many of its chunks were written whole (the
    // file refused the rest, or stop() ran out of patience).
    size_t write_to_file(const std::deque<Chunk>& batch);
    void open_file();

    std::string m_path;
    size_t m_max_pending;
    size_t m_wake_bytes; // the writer is woken when this much waits, else looks every k_latency
    LineWriterCounters& m_counters;
    int m_fd = -1;
    bool m_stream = false; // a pipe, socket or terminal: written in pieces it can take without blocking

    std::mutex m_mutex; // guards everything below
    std::condition_variable m_wake;
    std::deque<Chunk> m_queue;
    std::vector<std::string> m_spares; // written buffers, with their room, for producers
    size_t m_pending = 0;
    bool m_reopen = false;
    bool m_stopping = false;
    // When stop() stops waiting for a file that takes nothing (the writer thread reads it unlocked).
    std::atomic<std::chrono::steady_clock::rep> m_give_up_at{std::chrono::steady_clock::duration::max().count()};
    std::thread m_thread;
};

} // namespace wr::util
