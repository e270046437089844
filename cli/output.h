#pragma once
// Prints API results: aligned tables for people, bare JSON (-o json) for scripts.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "context.h"

namespace wr::cli {

struct Column {
    std::string header; // "NAME"
    std::string key;    // JSON key of each item; "a.b" reaches into objects
};

// A list as a table with these columns (or the bare array with -o json).
void print_list(const Context& context, const nlohmann::json& items, const std::vector<Column>& columns);
// One object as "field  value" lines (or the bare object with -o json).
void print_object(const Context& context, const nlohmann::json& object);
// A one-line confirmation in table mode ("deleted waiting room shop"); the result with -o json.
void print_done(const Context& context, const std::string& message, const nlohmann::json& result);

// A cell: strings as is, null as "-", booleans and numbers as JSON, arrays comma-joined.
std::string cell_text(const nlohmann::json& value);

} // namespace wr::cli
