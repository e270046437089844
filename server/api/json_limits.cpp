// Measures a JSON body with a SAX pass before anything is built from it.
#include "api/json_limits.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

namespace wr::api {
namespace {

using json = nlohmann::json;

// What nlohmann::json's nodes take with libstdc++ on a 64-bit machine, malloc's rounding included.
constexpr size_t k_value_bytes = 16;          // every value: a type tag and a pointer-sized union
constexpr size_t k_object_bytes = 64;         // an object's std::map
constexpr size_t k_array_bytes = 32;          // an array's std::vector
constexpr size_t k_member_bytes = 96;         // an object member: its tree node with the key's std::string
constexpr size_t k_element_slack_bytes = 16;  // an array element's share of its vector's spare capacity
constexpr size_t k_string_bytes = 48;         // a string value's std::string
constexpr size_t k_short_string = 15;         // characters a std::string holds without an allocation

size_t string_bytes(size_t length) { return length > k_short_string ? length + 1 + 16 : 0; }

// Counts what the document would hold; stops (returns false) at the first limit passed.
class CostCounter {
public:
    explicit CostCounter(const JsonLimits& limits) : m_limits(limits) {}

    bool null() { return value(0); }
    bool boolean(bool) { return value(0); }
    bool number_integer(json::number_integer_t) { return value(0); }
    bool number_unsigned(json::number_unsigned_t) { return value(0); }
    bool number_float(json::number_float_t, const json::string_t&) { return value(0); }
    bool string(json::string_t& text) { return value(k_string_bytes + string_bytes(text.size())); }
    bool binary(json::binary_t&) { return value(0); }
    bool start_object(size_t) { return open(false); }
    bool key(json::string_t& name) { return add(k_member_bytes + string_bytes(name.size())); }
    bool end_object() { return close(); }
    bool start_array(size_t) { return open(true); }
    bool end_array() { return close(); }
    bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) {
        m_syntax_error = true;
        return false;
    }

    const JsonCost& cost() const { return m_cost; }
    bool syntax_error() const { return m_syntax_error; }
    const char* exceeded() const { return m_exceeded; }

private:
    bool value(size_t own_bytes) {
        ++m_cost.values;
        const bool element = !m_in_array.empty() && m_in_array.back();
        return add(k_value_bytes + own_bytes + (element ? k_element_slack_bytes : 0));
    }
    bool open(bool array) {
        if (!value(array ? k_array_bytes : k_object_bytes)) return false;
        m_in_array.push_back(array);
        m_cost.depth = std::max(m_cost.depth, m_in_array.size());
        if (m_in_array.size() > m_limits.max_depth) {
            m_exceeded = "depth";
            return false;
        }
        return true;
    }
    bool close() {
        m_in_array.pop_back();
        return true;
    }
    bool add(size_t bytes) {
        m_cost.document_bytes += bytes;
        if (m_cost.document_bytes > m_limits.max_document_bytes) {
            m_exceeded = "size";
            return false;
        }
        return true;
    }

    const JsonLimits& m_limits;
    JsonCost m_cost;
    std::vector<bool> m_in_array; // per open container: whether it is an array
    bool m_syntax_error = false;
    const char* m_exceeded = nullptr;
};

std::string mebibytes(size_t bytes) {
    const size_t whole = bytes / (1024 * 1024);
    if (whole * 1024 * 1024 == bytes) return std::to_string(whole) + " MiB";
    return std::to_string(bytes) + " bytes";
}

} // namespace

JsonLimits json_limits_for(size_t max_body_bytes) {
    JsonLimits limits;
    const size_t most = std::numeric_limits<size_t>::max() / 16;
    limits.max_document_bytes = std::max<size_t>(1024 * 1024, std::min(max_body_bytes, most) * 10);
    return limits;
}

JsonCost json_cost(std::string_view body) {
    JsonLimits unlimited;
    unlimited.max_depth = std::numeric_limits<size_t>::max();
    unlimited.max_document_bytes = std::numeric_limits<size_t>::max();
    CostCounter counter(unlimited);
    json::sax_parse(body.begin(), body.end(), &counter);
    return counter.cost();
}

std::optional<std::string> json_limit_exceeded(std::string_view body, const JsonLimits& limits) {
    CostCounter counter(limits);
    if (json::sax_parse(body.begin(), body.end(), &counter) || counter.syntax_error() || !counter.exceeded()) return std::nullopt;
    if (std::string_view(counter.exceeded()) == "depth")
        return "the request body nests JSON arrays and objects more than " + std::to_string(limits.max_depth) + " deep";
    return "the request body would take more than " + mebibytes(limits.max_document_bytes) +
           " of memory as a JSON document (ten times --max-body-bytes)";
}

} // namespace wr::api
