// `wr audit`: who changed what in the configuration, newest first.
#include <algorithm>
#include <iostream>

#include "body_options.h"
#include "commands.h"
#include "output.h"
#include "util/escape.h"

namespace wr::cli {
namespace {

struct AuditCommand {
    std::string since;
    std::string until;
    std::string object;
    std::string type;
    int limit = 50;
};

// "example.com/shop/launch": where the object sits, for people.
std::string object_text(const nlohmann::json& object) {
    std::string text = object.value("type", "");
    std::string place;
    if (object["zone"].is_object()) place = object["zone"].value("name", "");
    if (object["room"].is_object()) place += (place.empty() ? "" : "/") + object["room"].value("name", "");
    const std::string name = object["name"].is_string() ? object["name"].get<std::string>() : "";
    if (object.value("type", "") != "zone" && !name.empty()) place += (place.empty() ? "" : "/") + name;
    if (object.value("type", "") == "zone") place = name;
    if (place.empty() && object["id"].is_string()) place = object["id"].get<std::string>();
    return text + " " + place;
}

void print_entries(const nlohmann::json& entries) {
    const std::vector<std::string> headers{"WHEN", "TOKEN", "ADDRESS", "VIA", "ACTION", "OBJECT"};
    std::vector<std::vector<std::string>> rows;
    std::vector<size_t> widths;
    for (const std::string& header : headers) widths.push_back(header.size());
    for (const auto& entry : entries) {
        const nlohmann::json& token = entry["token"];
        std::vector<std::string> row{entry.value("when", ""), token.is_object() ? token.value("name", "") : "-", entry.value("address", ""),
                                     entry.value("via", ""), entry.value("action", ""), object_text(entry["object"])};
        for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
        rows.push_back(std::move(row));
    }
    const auto line = [&](const std::vector<std::string>& row) {
        std::string text;
        for (size_t i = 0; i < row.size(); ++i) {
            text += row[i];
            if (i + 1 < row.size()) text += std::string(widths[i] - row[i].size() + 2, ' ');
        }
        std::cout << text << '\n';
    };
    line(headers);
    for (size_t i = 0; i < rows.size(); ++i) {
        line(rows[i]);
        // Each changed field under its entry, before → after.
        for (const auto& change : entries[i]["changes"])
            std::cout << "    " << change.value("field", "") << ": " << cell_text(change["before"]) << " -> " << cell_text(change["after"])
                      << '\n';
    }
}

} // namespace

void add_audit_command(CLI::App& root, Context& context) {
    auto command = std::make_shared<AuditCommand>();
    CLI::App* audit = root.add_subcommand("audit", "Show the audit log: who changed the configuration, when and how");
    audit->add_option("--since", command->since, "From this time: 30m, 1h, 2d ago, or an ISO 8601 time");
    audit->add_option("--until", command->until, "Before this time: 30m, 1h, 2d ago, or an ISO 8601 time");
    audit->add_option("--object", command->object,
                      "Only changes of this object (an id or a name: a zone, room, event, token or notification destination), or inside it");
    audit->add_option("--type", command->type, "Only objects of this type")
        ->check(CLI::IsMember({"zone", "zone_settings", "waiting_room", "event", "rule", "token", "notification_destination"}));
    audit->add_option("--limit", command->limit, "At most this many entries, newest first")->check(CLI::Range(1, 100000))->capture_default_str();
    audit->footer("Example:\n  wr audit --since 2h --object shop\n  wr audit --type token -o json\n\n"
                  "Secrets (token values, webhook secrets) are never shown: their changes read \"(changed)\".");
    audit->callback([&context, command] {
        const int per_page = std::clamp(command->limit, 5, 1000);
        std::string query = "/client/v4/audit_logs?per_page=" + std::to_string(per_page);
        if (!command->since.empty()) query += "&since=" + util::percent_encode(time_argument(command->since, "--since"));
        if (!command->until.empty()) query += "&until=" + util::percent_encode(time_argument(command->until, "--until"));
        if (!command->object.empty()) query += "&object=" + util::percent_encode(command->object);
        if (!command->type.empty()) query += "&type=" + util::percent_encode(command->type);
        nlohmann::json entries = nlohmann::json::array();
        for (int page = 1; static_cast<int>(entries.size()) < command->limit; ++page) {
            const nlohmann::json items = context.client().get(query + "&page=" + std::to_string(page));
            if (!items.is_array() || items.empty()) break;
            for (const auto& item : items)
                if (static_cast<int>(entries.size()) < command->limit) entries.push_back(item);
            if (items.size() < static_cast<size_t>(per_page)) break;
        }
        if (context.json_output()) {
            std::cout << entries.dump(2) << '\n';
            return;
        }
        if (entries.empty()) {
            std::cout << "no entries\n";
            return;
        }
        print_entries(entries);
    });
}

} // namespace wr::cli
