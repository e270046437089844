// The admin listener's handler threads.
#include "api/handler_pool.h"

#include <algorithm>

namespace wr::api {

HandlerPool::HandlerPool(int threads) {
    for (int i = 0; i < std::max(1, threads); ++i) m_threads.emplace_back([this] { serve(); });
}

HandlerPool::~HandlerPool() { stop(); }

void HandlerPool::enqueue(std::unique_ptr<Job> job) {
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping) return; // dropped here, on the caller's thread, as stop() drops the rest
        m_jobs.push_back(std::move(job));
    }
    m_wake.notify_one();
}

void HandlerPool::stop() {
    std::deque<std::unique_ptr<Job>> dropped;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        dropped.swap(m_jobs);
    }
    m_wake.notify_all();
    for (std::thread& thread : m_threads)
        if (thread.joinable()) thread.join();
}

void HandlerPool::serve() {
    while (true) {
        std::unique_ptr<Job> job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
            if (m_stopping) return;
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        job->run();
    }
}

} // namespace wr::api
