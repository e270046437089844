// Parses and checks Prometheus text exposition.
#include "support/prometheus_parser.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace wr::test {
namespace {

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
bool name_char(char c) { return name_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

[[noreturn]] void fail(size_t line, const std::string& message) {
    throw std::runtime_error("line " + std::to_string(line) + ": " + message);
}

double parse_value(const std::string& text, size_t line) {
    if (text == "+Inf") return INFINITY;
    if (text == "-Inf") return -INFINITY;
    if (text == "NaN") return NAN;
    size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        fail(line, "not a number: " + text);
    }
    if (used != text.size()) fail(line, "not a number: " + text);
    return value;
}

std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        const std::string s = suffix;
        if (name.size() > s.size() && name.ends_with(s)) {
            const std::string base = name.substr(0, name.size() - s.size());
            if (types.contains(base) && types.at(base) == "histogram") return base;
        }
    }
    return name;
}

} // namespace

double Exposition::value(const std::string& name, std::map<std::string, std::string> labels, const std::string& label,
                         const std::string& label_value) const {
    labels[label] = label_value;
    return value(name, labels);
}

double Exposition::value(const std::string& name, const std::map<std::string, std::string>& labels) const {
    for (const Sample& sample : samples)
        if (sample.name == name && sample.labels == labels) return sample.value;
    throw std::runtime_error("no sample " + name);
}

Exposition parse_prometheus(const std::string& text) {
    Exposition exposition;
    std::set<std::string> helped;
    std::set<std::string> seen_series;
    std::istringstream lines(text);
    std::string line;
    size_t number = 0;
    if (!text.empty() && text.back() != '\n') fail(0, "the exposition must end with a newline");
    while (std::getline(lines, line)) {
        ++number;
        if (line.empty()) continue;
        if (line[0] == '#') {
            std::istringstream words(line);
            std::string hash, keyword, name;
            words >> hash >> keyword >> name;
            if (keyword == "TYPE") {
                std::string type;
                words >> type;
                if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" && type != "untyped")
                    fail(number, "unknown type " + type);
                if (exposition.types.contains(name)) fail(number, "second TYPE for " + name);
                for (const Sample& sample : exposition.samples)
                    if (family_of(sample.name, exposition.types) == name) fail(number, "TYPE after samples of " + name);
                exposition.types[name] = type;
            } else if (keyword == "HELP") {
                if (!helped.insert(name).second) fail(number, "second HELP for " + name);
            }
            continue;
        }
        Sample sample;
        size_t at = 0;
        if (!name_start(line[0])) fail(number, "a metric name must start with a letter, '_' or ':'");
        while (at < line.size() && name_char(line[at])) sample.name += line[at++];
        if (at < line.size() && line[at] == '{') {
            ++at;
            while (at < line.size() && line[at] != '}') {
                std::string label;
                while (at < line.size() && name_char(line[at]) && line[at] != ':') label += line[at++];
                if (label.empty() || at + 1 >= line.size() || line[at] != '=' || line[at + 1] != '"') fail(number, "bad label");
                at += 2;
                std::string value;
                while (at < line.size() && line[at] != '"') {
                    if (line[at] == '\\') {
                        if (at + 1 >= line.size()) fail(number, "bad escape");
                        const char e = line[at + 1];
                        if (e == 'n') value += '\n';
                        else if (e == '\\' || e == '"') value += e;
                        else fail(number, std::string("bad escape \\") + e);
                        at += 2;
                    } else {
                        value += line[at++];
                    }
                }
                if (at >= line.size()) fail(number, "unterminated label value");
                ++at;
                if (sample.labels.contains(label)) fail(number, "label " + label + " twice");
                sample.labels[label] = value;
                if (at < line.size() && line[at] == ',') ++at;
            }
            if (at >= line.size()) fail(number, "unterminated labels");
            ++at;
        }
        if (at >= line.size() || line[at] != ' ') fail(number, "expected a space before the value");
        std::istringstream rest(line.substr(at + 1));
        std::string value_text, timestamp;
        rest >> value_text >> timestamp;
        sample.value = parse_value(value_text, number);
        const std::string family = family_of(sample.name, exposition.types);
        if (!exposition.types.contains(family)) fail(number, "no TYPE for " + sample.name);
        std::string key = sample.name;
        for (const auto& [name, value] : sample.labels) key += "|" + name + "=" + value;
        if (!seen_series.insert(key).second) fail(number, "the same series twice: " + key);
        exposition.samples.push_back(std::move(sample));
    }
    // Histograms: per series (the labels other than le), cumulative buckets ending at +Inf,
    // which equals the series' _count.
    for (const auto& [family, type] : exposition.types) {
        if (type != "histogram") continue;
        std::map<std::map<std::string, std::string>, std::pair<double, double>> series; // labels → (previous, +Inf)
        for (const Sample& sample : exposition.samples) {
            if (sample.name != family + "_bucket") continue;
            if (!sample.labels.contains("le")) fail(0, family + " bucket without le");
            auto labels = sample.labels;
            labels.erase("le");
            auto& [previous, infinite] = series.try_emplace(labels, -1.0, -1.0).first->second;
            if (sample.value < previous) fail(0, family + " buckets are not cumulative");
            previous = sample.value;
            if (sample.labels.at("le") == "+Inf") infinite = sample.value;
        }
        if (series.empty()) fail(0, family + " has no buckets");
        for (const auto& [labels, figures] : series) {
            if (figures.second < 0) fail(0, family + " has no +Inf bucket");
            if (exposition.value(family + "_count", labels) != figures.second) fail(0, family + "_count differs from the +Inf bucket");
        }
    }
    return exposition;
}

} // namespace wr::test
