// libFuzzer target for what the admin API reads: any bytes as a JSON body for a room, an event
// and a rule (create and patch), then validation, and the room's queue-page template checked as
// HTML. Errors must name a field or say what is wrong; nothing may crash. Build and run with
// `make fuzz` (fuzz/run.sh).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "model/json_codec.h"
#include "model/template_syntax.h"
#include "model/validate.h"

namespace {

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

void check_errors(const wr::model::FieldErrors& errors) {
    for (const wr::model::FieldError& error : errors) check(!error.message.empty(), "every error says what is wrong");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    // The page template validator takes any text.
    const auto template_error = wr::model::template_syntax_error(input);
    if (template_error) check(!template_error->empty(), "a template error says what is wrong");

    const nlohmann::json body = nlohmann::json::parse(input, nullptr, false);
    if (body.is_discarded()) return 0;
    for (const auto mode : {wr::model::BodyMode::create, wr::model::BodyMode::patch}) {
        wr::model::RoomSettings room;
        const wr::model::FieldErrors room_errors = wr::model::read_room_settings(body, mode, room);
        check_errors(room_errors);
        if (room_errors.empty()) check_errors(wr::model::validate_room(room, "example.com"));

        wr::model::EventSettings event;
        const wr::model::FieldErrors event_errors = wr::model::read_event_settings(body, mode, event);
        check_errors(event_errors);
        if (event_errors.empty()) check_errors(wr::model::validate_event(event));

        wr::model::RuleSettings rule;
        const wr::model::FieldErrors rule_errors = wr::model::read_rule_settings(body, mode, rule);
        check_errors(rule_errors);
        if (rule_errors.empty()) check_errors(wr::model::validate_rule(rule));
    }
    if (!body.is_object()) {
        wr::model::RoomSettings room;
        check(!wr::model::read_room_settings(body, wr::model::BodyMode::create, room).empty(), "a body that is not an object is an error");
    }
    return 0;
}
