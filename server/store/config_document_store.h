#pragma once
// Reads the whole configuration in one read transaction, so the edge never sees half a change.
#include "model/config_document.h"
#include "store/database.h"

namespace wr::store {

model::ConfigDocument read_config_document(Database& database);

} // namespace wr::store
