#pragma once
// The configuration document as JSON, the way a control node hands it to its edges: every zone,
// room, event and rule with its id and timestamps, so an edge compiles exactly what the control
// node stores. Pure: no I/O.
#include <nlohmann/json.hpp>

#include "model/config_document.h"
#include "model/field_error.h"

namespace wr::model {

// Bumped when an older edge could no longer read what a newer control node writes.
inline constexpr int k_config_document_format = 1;

nlohmann::json config_document_to_json(const ConfigDocument& document);

// Reads what config_document_to_json wrote into `document` (which it replaces). Each error
// names where the bad value is, such as "zones[0].waiting_rooms[1].host: is required"; with
// errors, `document` is left unchanged.
FieldErrors read_config_document(const nlohmann::json& json, ConfigDocument& document);

} // namespace wr::model
