#pragma once
// A strict reader of the Prometheus text exposition format (0.0.4), for tests: it refuses what
// a Prometheus server would refuse, and checks histogram buckets for consistency.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace wr::test {

struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

struct Exposition {
    std::map<std::string, std::string> types; // family → counter, gauge, histogram, …
    std::vector<Sample> samples;

    // The value of the one sample with this name and these labels; throws if there is none.
    double value(const std::string& name, const std::map<std::string, std::string>& labels = {}) const;
    // The same with one more label: value("wr_requests_total", room, "outcome", "queued").
    double value(const std::string& name, std::map<std::string, std::string> labels, const std::string& label,
                 const std::string& label_value) const;
};

// Throws std::runtime_error("line N: …") on the first problem.
Exposition parse_prometheus(const std::string& text);

} // namespace wr::test
