#pragma once
// The variables of a queue page, named and valued as in Cloudflare's templates, and the same
// facts as the cfWaitingRoom JSON object.
#include <kainjow/mustache.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "page/queue_view.h"

namespace wr::page {

// The names of the boolean variables (they render as "true"/"false" and drive sections).
const std::vector<std::string_view>& boolean_variable_names();

// Variables to force in a preview: name → value ("true"/"false" for booleans).
using Overrides = std::map<std::string, std::string>;

kainjow::mustache::data template_data(const QueueView& view, const Overrides* overrides = nullptr);

// {"cfWaitingRoom": {…}}
nlohmann::json json_response(const QueueView& view);

} // namespace wr::page
