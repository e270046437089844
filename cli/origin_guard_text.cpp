// Puts a room's origin guard into the words `wr rooms status` prints.
#include "origin_guard_text.h"

#include <cmath>
#include <cstdio>

namespace wr::cli {
namespace {

using nlohmann::json;

// A number field of an object, or NaN when it is absent or not a number.
double number(const json& object, const char* key) {
    if (!object.is_object()) return std::nan("");
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : std::nan("");
}

std::string integer_text(double value) { return std::to_string(std::llround(value)); }

} // namespace

std::string percent_text(double fraction) {
    const double percent = fraction * 100.0;
    if (percent == 0) return "0 %";
    if (percent < 0.1) return "< 0.1 %";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", percent);
    std::string out = text;
    if (out.ends_with(".0")) out.resize(out.size() - 2);
    return out + " %";
}

std::string origin_guard_headline(const json& status, const ConfiguredLimits& limits, const json& guard) {
    if (!status.is_object() || !status.contains("origin_guard") || !status["origin_guard"].is_object()) return "";
    const json& state_object = status["origin_guard"];
    const std::string state = state_object.value("state", "");
    const double effective_new = number(status, "effective_new_users_per_minute");
    if ((state != "throttling" && state != "recovering") || std::isnan(effective_new)) return "";

    std::string cause = "origin recovering";
    if (state == "throttling") {
        const double p95 = number(state_object, "p95_ttfb_ms");
        const double errors = number(state_object, "error_rate");
        const bool slow = !std::isnan(p95) && p95 > number(guard, "target_ttfb_ms");
        const bool failing = !std::isnan(errors) && errors > number(guard, "max_error_rate");
        cause = slow && failing ? "origin slow and failing" : slow ? "origin slow" : failing ? "origin failing" : "origin over target";
    }
    std::string line = cause + ": admitting " + integer_text(effective_new) + " a minute of " + std::to_string(limits.new_users_per_minute);
    const double effective_total = number(status, "effective_total_active_users");
    if (!std::isnan(effective_total) && effective_total < static_cast<double>(limits.total_active_users))
        line += ", " + integer_text(effective_total) + " active of " + std::to_string(limits.total_active_users);
    return line;
}

std::string origin_figures(const json& status, const json& guard) {
    if (!status.is_object() || !status.contains("origin_guard")) return "";
    const json& figures = status["origin_guard"];
    const double p95 = number(figures, "p95_ttfb_ms");
    const double errors = number(figures, "error_rate");
    // The targets mean something only while the guard works to them.
    const bool guarded = guard.is_object() && guard.value("enabled", false);
    std::string line;
    if (!std::isnan(p95)) {
        line = "origin p95 time to first byte " + integer_text(p95) + " ms";
        if (const double target = number(guard, "target_ttfb_ms"); guarded && !std::isnan(target)) line += " (target " + integer_text(target) + " ms)";
    }
    if (!std::isnan(errors)) {
        line += line.empty() ? "origin errors " : ", errors ";
        line += percent_text(errors);
        if (const double most = number(guard, "max_error_rate"); guarded && !std::isnan(most)) line += " (at most " + percent_text(most) + ")";
    }
    return line;
}

} // namespace wr::cli
