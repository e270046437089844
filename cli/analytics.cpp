// `wr analytics ROOM`: a room's per-minute analytics as a table, JSON, CSV, or a terminal chart.
#include <algorithm>
#include <cmath>
#include <httplib.h>
#include <iostream>

#include "body_options.h"
#include "commands.h"
#include "output.h"
#include "resolve.h"
#include "util/time_format.h"

namespace wr::cli {
namespace {

struct AnalyticsCommand {
    std::string room;
    std::string zone;
    std::string since = "1h";
    std::string until;
    std::string step;
    bool chart = false;
};

std::string query_string(const AnalyticsCommand& command) {
    std::string query = "?since=" + time_argument(command.since, "--since");
    if (!command.until.empty()) query += "&until=" + time_argument(command.until, "--until");
    if (!command.step.empty()) query += "&step=" + command.step;
    return query;
}

// A terminal chart: one column per point, rows of block characters; active users in '█', queued
// in '▒', and the total_active_users limit marked with '─'.
void print_chart(const nlohmann::json& series) {
    constexpr int k_rows = 12;
    double maximum = 1;
    for (const auto& point : series)
        maximum = std::max({maximum, point.value("totalActiveUsersAvg", 0.0), static_cast<double>(point.value("queuedUsersMax", 0)),
                            static_cast<double>(point.value("totalActiveUsersLimit", 0))});
    const size_t width = std::min<size_t>(series.size(), 120);
    const size_t first = series.size() - width;
    for (int row = k_rows; row >= 1; --row) {
        const double level = maximum * row / k_rows;
        const double below = maximum * (row - 1) / k_rows;
        std::string line = std::string(row == k_rows ? std::to_string(static_cast<int64_t>(maximum)) : "");
        line.resize(8, ' ');
        line += "|";
        for (size_t i = first; i < series.size(); ++i) {
            const auto& point = series[i];
            const double active = point.value("totalActiveUsersAvg", 0.0);
            const double queued = static_cast<double>(point.value("queuedUsersMax", 0));
            const double limit = static_cast<double>(point.value("totalActiveUsersLimit", 0));
            if (active >= level - 1e-9 || (active > below && row == 1)) line += "█";
            else if (queued >= level - 1e-9) line += "▒";
            else if (limit > below && limit <= level) line += "─";
            else line += " ";
        }
        std::cout << line << '\n';
    }
    std::cout << std::string(8, ' ') << "+" << std::string(width, '-') << '\n';
    if (!series.empty())
        std::cout << std::string(9, ' ') << series[first].value("time", "").substr(11, 5) << " … "
                  << series.back().value("time", "").substr(11, 5) << " UTC   █ active users  ▒ queued users  ─ active limit\n";
}

} // namespace

void add_analytics_commands(CLI::App& root, Context& context) {
    auto command = std::make_shared<AnalyticsCommand>();
    CLI::App* analytics = root.add_subcommand("analytics", "Show a room's analytics: users, queue, waits, outcomes per minute");
    analytics->add_option("room", command->room, "Room id or name")->required();
    analytics->add_option("--zone", command->zone, "Zone id or name (when several zones have rooms of that name)");
    analytics->add_option("--since", command->since, "Start: 30m, 1h, 2d ago, or an ISO 8601 time")->capture_default_str();
    analytics->add_option("--until", command->until, "End: the same forms (default: now)");
    analytics->add_option("--step", command->step, "1m, 15m or 1h (default: by the range)")->check(CLI::IsMember({"1m", "15m", "1h"}));
    analytics->add_flag("--chart", command->chart, "Draw active and queued users in the terminal");
    analytics->footer("Examples:\n  wr analytics shop --since 2h\n  wr analytics shop --since 1d --step 15m -o json\n"
                      "  wr analytics shop -o csv > shop.csv\n  wr analytics shop --chart");
    // -o csv is accepted here besides table and json.
    analytics->callback([&context, command] {
        const ApiClient client = context.client();
        const RoomRef room = find_room(client, command->room, command->zone);
        const std::string path = room.path() + "/analytics" + query_string(*command);
        if (context.output == "csv") {
            std::cout << client.get_text(path + "&format=csv");
            return;
        }
        const nlohmann::json result = client.get(path);
        const nlohmann::json& series = result["series"];
        if (context.json_output()) {
            std::cout << result.dump(2) << '\n';
            return;
        }
        if (command->chart) {
            print_chart(series);
            return;
        }
        print_list(context, series,
                   {{"TIME", "time"}, {"ACTIVE(AVG)", "totalActiveUsersAvg"}, {"ACTIVE(MAX)", "totalActiveUsersMax"},
                    {"QUEUED(MAX)", "queuedUsersMax"}, {"ADMITTED", "newUsersPerMinute"}, {"QUEUED REQ", "requestsQueued"},
                    {"WAIT SHOWN", "waitTimeEstimatedP50"}, {"WAITED P50 S", "totalTimeWaitedP50"}, {"ORIGIN P95 MS", "timeOnOriginP95"},
                    {"REVOKED", "sessionsRevoked"}, {"LIMIT", "totalActiveUsersLimit"}});
    });
}

} // namespace wr::cli
