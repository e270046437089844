#pragma once
// Randomness as the rest of wr sees it: raw 64-bit draws behind an interface, with helpers
// built on top so that results are identical on every compiler (std distributions are not).
#include <cstdint>
#include <random>

namespace wr::util {

class Random {
public:
    virtual ~Random() = default;
    virtual uint64_t next() = 0;

    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; } // [0, 1)
    bool chance(double probability) { return unit() < probability; }
    // Uniform in [0, bound); bound must be positive.
    uint64_t below(uint64_t bound) { return static_cast<uint64_t>(unit() * static_cast<double>(bound)); }
};

// Deterministic, for tests and simulations: mt19937_64 is fully specified by the standard.
class SeededRandom final : public Random {
public:
    explicit SeededRandom(uint64_t seed) : m_engine(seed) {}
    uint64_t next() override { return m_engine(); }

private:
    std::mt19937_64 m_engine;
};

// Seeded once from the operating system; not thread-safe, so each thread owns one.
class SystemRandom final : public Random {
public:
    SystemRandom() : m_engine(std::random_device{}() ^ (static_cast<uint64_t>(std::random_device{}()) << 32)) {}
    uint64_t next() override { return m_engine(); }

private:
    std::mt19937_64 m_engine;
};

} // namespace wr::util
