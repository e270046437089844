#pragma once
// SQL for API tokens (hashes only).
#include <string_view>
#include <vector>

#include "model/token.h"
#include "store/database.h"

namespace wr::store {

std::vector<model::Token> list_tokens(Connection& connection);
void insert_token(Connection& connection, const model::Token& token);
// Returns false when no token has that id.
bool delete_token(Connection& connection, std::string_view id);
void touch_token(Connection& connection, std::string_view id, util::TimePoint now);

} // namespace wr::store
