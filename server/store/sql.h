#pragma once
// Conversions between SQLite columns and model types, shared by the repositories.
#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>
#include <optional>
#include <string>

#include "model/enums.h"
#include "util/clock.h"

namespace wr::store {

// Offsets and limits of a listing page.
struct PageWindow {
    int64_t offset = 0;
    int64_t limit = 25;
};

inline int64_t to_ms(util::TimePoint time) { return time.time_since_epoch().count(); }
inline util::TimePoint from_ms(int64_t ms) { return util::TimePoint{util::Milliseconds{ms}}; }

inline void bind_optional(SQLite::Statement& statement, int index, const std::optional<std::string>& value) {
    if (value) statement.bind(index, *value); else statement.bind(index);
}
inline void bind_optional(SQLite::Statement& statement, int index, const std::optional<int64_t>& value) {
    if (value) statement.bind(index, *value); else statement.bind(index);
}
inline void bind_optional(SQLite::Statement& statement, int index, const std::optional<int>& value) {
    if (value) statement.bind(index, *value); else statement.bind(index);
}
inline void bind_optional(SQLite::Statement& statement, int index, const std::optional<bool>& value) {
    if (value) statement.bind(index, *value ? 1 : 0); else statement.bind(index);
}
template <typename Enum> void bind_enum(SQLite::Statement& statement, int index, Enum value) {
    statement.bind(index, std::string(model::to_string(value)));
}
template <typename Enum> void bind_optional_enum(SQLite::Statement& statement, int index, const std::optional<Enum>& value) {
    if (value) bind_enum(statement, index, *value); else statement.bind(index);
}

inline std::optional<std::string> optional_text(const SQLite::Column& column) {
    if (column.isNull()) return std::nullopt;
    return column.getString();
}
inline std::optional<int64_t> optional_int64(const SQLite::Column& column) {
    if (column.isNull()) return std::nullopt;
    return column.getInt64();
}
inline std::optional<int> optional_int(const SQLite::Column& column) {
    if (column.isNull()) return std::nullopt;
    return column.getInt();
}
inline std::optional<bool> optional_bool(const SQLite::Column& column) {
    if (column.isNull()) return std::nullopt;
    return column.getInt() != 0;
}
// The schema's CHECK constraints keep enum columns valid; a default guards a hand-edited file.
template <typename Enum> Enum enum_column(const SQLite::Column& column, Enum fallback) {
    return model::parse_enum<Enum>(column.getString()).value_or(fallback);
}
template <typename Enum> std::optional<Enum> optional_enum_column(const SQLite::Column& column) {
    if (column.isNull()) return std::nullopt;
    return model::parse_enum<Enum>(column.getString());
}

} // namespace wr::store
