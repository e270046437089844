#pragma once
// A fixed set of threads that run the admin API's handlers, which block on SQLite, away from the
// listener's event loop; jobs wait their turn first come, first served. Several pools keep one
// kind of work from waiting behind another (the admin listener has three: handlers, large bodies,
// /healthz).
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace wr::api {

class HandlerPool {
public:
    // One unit of work. Move-only, since it carries a coroutine's completion handler.
    class Job {
    public:
        virtual ~Job() = default;
        virtual void run() = 0;
    };

    explicit HandlerPool(int threads);
    ~HandlerPool();
    HandlerPool(const HandlerPool&) = delete;
    HandlerPool& operator=(const HandlerPool&) = delete;

    template <typename Work> void submit(Work work) { enqueue(std::make_unique<JobOf<Work>>(std::move(work))); }

    // Lets the running jobs finish, drops those still waiting (on the calling thread), joins.
    void stop();
    int threads() const { return static_cast<int>(m_threads.size()); }

private:
    template <typename Work> class JobOf final : public Job {
    public:
        explicit JobOf(Work work) : m_work(std::move(work)) {}
        void run() override { m_work(); }

    private:
        Work m_work;
    };

    void enqueue(std::unique_ptr<Job> job);
    void serve();

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::unique_ptr<Job>> m_jobs;
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

} // namespace wr::api
