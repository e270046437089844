#pragma once
// Time as the rest of wr sees it: one millisecond-precision time point, read through an
// injected Clock so that tests and `wr simulate` can run on virtual time.
#include <atomic>
#include <chrono>

namespace wr::util {

using TimePoint = std::chrono::sys_time<std::chrono::milliseconds>;
using Milliseconds = std::chrono::milliseconds;

class Clock {
public:
    virtual ~Clock() = default;
    virtual TimePoint now() const = 0;
};

class SystemClock final : public Clock {
public:
    TimePoint now() const override {
        return std::chrono::time_point_cast<Milliseconds>(std::chrono::system_clock::now());
    }
};

// A clock that moves only when told to; safe to read and advance from several threads.
class FakeClock final : public Clock {
public:
    explicit FakeClock(TimePoint start) : m_ms(start.time_since_epoch().count()) {}
    TimePoint now() const override { return TimePoint{Milliseconds{m_ms.load()}}; }
    void advance(Milliseconds by) { m_ms += by.count(); }
    void set(TimePoint to) { m_ms = to.time_since_epoch().count(); }

private:
    std::atomic<int64_t> m_ms;
};

} // namespace wr::util
