#pragma once
// Waiting for a figure that several processes settle between them (a sync, a push, a poll):
// ask until it holds or the time is up, instead of sleeping a guess that a busy CI machine
// outruns. The caller then checks the figure itself, so a failure still shows its values.
#include <chrono>
#include <thread>

namespace wr::test {

template <typename Holds>
bool eventually(Holds holds, std::chrono::milliseconds within = std::chrono::seconds{5},
                std::chrono::milliseconds every = std::chrono::milliseconds{100}) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (!holds()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(every);
    }
    return true;
}

} // namespace wr::test
