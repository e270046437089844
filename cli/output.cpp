// Formats results as tables or JSON.
#include "output.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "util/utf8.h"

namespace wr::cli {
namespace {

constexpr size_t k_max_cell = 60;

const nlohmann::json& lookup(const nlohmann::json& item, const std::string& key) {
    static const nlohmann::json k_null;
    const nlohmann::json* current = &item;
    size_t start = 0;
    while (true) {
        const size_t dot = key.find('.', start);
        const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!current->is_object() || !current->contains(part)) return k_null;
        current = &(*current)[part];
        if (dot == std::string::npos) return *current;
        start = dot + 1;
    }
}

// At most k_max_cell characters, cut between characters (a name of "é"s is not cut inside one).
std::string shorten(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (util::utf8_length(text) > k_max_cell) text = std::string(util::utf8_prefix(text, k_max_cell - 3)) + "...";
    return text;
}

} // namespace

std::string cell_text(const nlohmann::json& value) {
    if (value.is_null()) return "-";
    if (value.is_string()) return value.get<std::string>().empty() ? "\"\"" : value.get<std::string>();
    if (value.is_array()) {
        std::string joined;
        for (const auto& item : value) {
            if (!joined.empty()) joined += ", ";
            if (item.is_object() && item.contains("host"))
                joined += item.value("host", "") + item.value("path", "");
            else
                joined += item.is_string() ? item.get<std::string>() : item.dump();
        }
        return joined.empty() ? "[]" : joined;
    }
    if (value.is_object()) {
        std::string joined;
        for (const auto& [key, inner] : value.items()) joined += (joined.empty() ? "" : " ") + key + "=" + cell_text(inner);
        return joined;
    }
    return value.dump();
}

void print_list(const Context& context, const nlohmann::json& items, const std::vector<Column>& columns) {
    if (context.json_output()) {
        std::cout << items.dump(2) << '\n';
        return;
    }
    std::vector<std::vector<std::string>> rows;
    std::vector<size_t> widths;
    for (const Column& column : columns) widths.push_back(column.header.size());
    for (const auto& item : items) {
        std::vector<std::string> row;
        for (size_t i = 0; i < columns.size(); ++i) {
            row.push_back(shorten(cell_text(lookup(item, columns[i].key))));
            widths[i] = std::max(widths[i], util::utf8_length(row.back()));
        }
        rows.push_back(std::move(row));
    }
    const auto print_row = [&](const std::vector<std::string>& row) {
        std::string line;
        for (size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size()) line += std::string(widths[i] - util::utf8_length(row[i]) + 2, ' ');
        }
        std::cout << line << '\n';
    };
    std::vector<std::string> header;
    for (const Column& column : columns) header.push_back(column.header);
    print_row(header);
    for (const auto& row : rows) print_row(row);
}

void print_object(const Context& context, const nlohmann::json& object) {
    if (context.json_output()) {
        std::cout << object.dump(2) << '\n';
        return;
    }
    // A nested object gets a line per field ("origin_guard.target_ttfb_ms  500"), so none is cut
    // off at the cell width.
    std::vector<std::pair<std::string, std::string>> lines;
    for (const auto& [key, value] : object.items()) {
        if (value.is_object() && !value.empty())
            for (const auto& [inner_key, inner] : value.items()) lines.emplace_back(key + "." + inner_key, shorten(cell_text(inner)));
        else
            lines.emplace_back(key, shorten(cell_text(value)));
    }
    size_t width = 0;
    for (const auto& [key, text] : lines) width = std::max(width, key.size());
    for (const auto& [key, text] : lines) std::cout << key << std::string(width - key.size() + 2, ' ') << text << '\n';
}

void print_done(const Context& context, const std::string& message, const nlohmann::json& result) {
    if (context.json_output())
        std::cout << result.dump(2) << '\n';
    else
        std::cout << message << '\n';
}

} // namespace wr::cli
