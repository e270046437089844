// Queues buffers of lines and writes them from a thread of its own.
#include "util/line_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <utility>

#include "util/broken_pipes.h"
#include "util/log.h"

namespace wr::util {
namespace {

constexpr size_t k_spares = 16;
// The writer sleeps until this much waits (a quarter of the bound, if that is less), or for
// k_latency at most: a few large writes cost the producers' core less than many small ones, each
// with its wake-up and context switch.
constexpr size_t k_wake_bytes = 256 * 1024;
constexpr std::chrono::milliseconds k_latency{250};
// Written at most this much at a time to a pipe it has polled writable: a pipe with room for
// PIPE_BUF bytes takes them without blocking, so a reader that stops cannot hang the writer.
constexpr size_t k_stream_piece = PIPE_BUF;
// A regular file's batch goes in writev calls of up to this many buffers.
constexpr size_t k_pieces_per_write = 64;

int open_for_append(const std::string& path) {
    // Non-blocking: opening a FIFO waits for no reader, and the writes are polled (see write_all).
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0640);
    if (fd < 0) throw std::runtime_error("cannot open " + path + " for writing: " + std::strerror(errno));
    return fd;
}

} // namespace

LineWriter::LineWriter(std::string path, size_t max_pending_bytes, LineWriterCounters& counters)
    : m_path(std::move(path)), m_max_pending(max_pending_bytes),
      m_wake_bytes(std::max<size_t>(1, std::min(k_wake_bytes, max_pending_bytes / 4))), m_counters(counters) {
    open_file();
}

LineWriter::~LineWriter() {
    stop(std::chrono::milliseconds{0});
    if (m_fd > STDERR_FILENO) ::close(m_fd);
}

void LineWriter::open_file() {
    if (m_path == "-") {
        m_fd = STDOUT_FILENO;
    } else {
        const int fd = open_for_append(m_path);
        if (m_fd > STDERR_FILENO) ::close(m_fd);
        m_fd = fd;
    }
    struct stat info {};
    m_stream = ::fstat(m_fd, &info) == 0 && !S_ISREG(info.st_mode);
}

void LineWriter::start() {
    m_thread = std::thread([this] {
        // A reader that went away makes write() fail with EPIPE instead of killing the process.
        block_broken_pipe_signal();
        run();
    });
}

void LineWriter::stop(std::chrono::milliseconds patience) {
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping && !m_thread.joinable()) return;
        m_stopping = true;
        m_give_up_at = (std::chrono::steady_clock::now() + patience).time_since_epoch().count();
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

bool LineWriter::submit(std::string& buffer, size_t size, uint64_t lines) {
    if (size == 0) return true;
    std::unique_lock lock(m_mutex, std::try_to_lock);
    if (!lock) return false;
    if (m_stopping || m_pending + size > m_max_pending) {
        m_counters.dropped.fetch_add(lines, std::memory_order_relaxed);
        return true;
    }
    m_pending += size;
    std::string replacement;
    if (!m_spares.empty()) {
        replacement = std::move(m_spares.back());
        m_spares.pop_back();
    }
    m_queue.push_back({std::move(buffer), size, lines});
    buffer = std::move(replacement);
    const bool wake = m_pending >= m_wake_bytes;
    lock.unlock();
    if (wake) m_wake.notify_one();
    return true;
}

void LineWriter::reopen() {
    {
        std::lock_guard lock(m_mutex);
        m_reopen = true;
    }
    m_wake.notify_one();
}

bool LineWriter::write_all(std::string_view text) {
    size_t done = 0;
    while (done < text.size()) {
        if (std::chrono::steady_clock::now().time_since_epoch().count() >= m_give_up_at.load()) return false;
        pollfd ready{m_fd, POLLOUT, 0};
        const int polled = ::poll(&ready, 1, 100);
        if (polled < 0 && errno != EINTR) return false;
        if (polled <= 0) continue; // not writable yet: look at the clock (stop's patience) and wait again
        if (ready.revents & (POLLERR | POLLNVAL)) return false;
        const size_t piece = std::min(k_stream_piece, text.size() - done);
        const ssize_t written = ::write(m_fd, text.data() + done, piece);
        if (written < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return false; // EPIPE (the reader left), ENOSPC, EIO: these lines are lost
        }
        done += static_cast<size_t>(written);
    }
    return true;
}

size_t LineWriter::write_to_file(const std::deque<Chunk>& batch) {
    size_t done = 0;   // chunks written whole
    size_t offset = 0; // bytes of chunk `done` written
    while (done < batch.size()) {
        if (std::chrono::steady_clock::now().time_since_epoch().count() >= m_give_up_at.load()) break;
        iovec pieces[k_pieces_per_write];
        int count = 0;
        for (size_t i = done; i < batch.size() && count < static_cast<int>(std::size(pieces)); ++i, ++count) {
            const size_t skip = i == done ? offset : 0;
            pieces[count] = {const_cast<char*>(batch[i].text.data()) + skip, batch[i].size - skip};
        }
        ssize_t written = ::writev(m_fd, pieces, count);
        if (written < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            break; // ENOSPC, EIO: the rest of these lines are lost
        }
        while (written > 0) {
            const size_t taken = std::min(static_cast<size_t>(written), batch[done].size - offset);
            offset += taken;
            written -= static_cast<ssize_t>(taken);
            if (offset == batch[done].size) {
                ++done;
                offset = 0;
            }
        }
    }
    return done;
}

void LineWriter::run() {
    std::deque<Chunk> batch;
    while (true) {
        bool reopen = false;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait_for(lock, k_latency, [this] { return m_stopping || m_reopen || m_pending >= m_wake_bytes; });
            batch.swap(m_queue);
            reopen = std::exchange(m_reopen, false);
            if (batch.empty() && m_stopping) return;
        }
        if (reopen) {
            try {
                open_file();
                log_info("log", "reopened " + m_path);
            } catch (const std::exception& error) {
                // Keep writing to the file already open: losing the rotation beats losing lines.
                // Said loudly, or the operator believes the rotation worked.
                log_warn("log", std::string(error.what()) + "; lines still go to the file open before");
            }
        }
        if (m_stream) {
            for (Chunk& chunk : batch) {
                if (write_all(std::string_view(chunk.text).substr(0, chunk.size)))
                    m_counters.written.fetch_add(chunk.lines, std::memory_order_relaxed);
                else
                    m_counters.dropped.fetch_add(chunk.lines, std::memory_order_relaxed);
                std::lock_guard lock(m_mutex);
                m_pending -= chunk.size;
                if (m_spares.size() < k_spares) m_spares.push_back(std::move(chunk.text));
            }
        } else {
            // A regular file takes the whole batch in one writev: one system call, and the page
            // cache works in larger pieces than one per buffer.
            const size_t written = write_to_file(batch);
            std::lock_guard lock(m_mutex);
            for (size_t i = 0; i < batch.size(); ++i) {
                (i < written ? m_counters.written : m_counters.dropped).fetch_add(batch[i].lines, std::memory_order_relaxed);
                m_pending -= batch[i].size;
                if (m_spares.size() < k_spares) m_spares.push_back(std::move(batch[i].text));
            }
        }
        batch.clear();
    }
}

} // namespace wr::util
