// Creates, updates and deletes events with the rules that involve a room's other events.
#include "control/events.h"

#include "control/error.h"
#include "model/validate.h"
#include "store/events_store.h"
#include "util/secure.h"

namespace wr::control {
namespace {

void check_event(store::Connection& connection, util::TimePoint now, const model::Room& room,
                 const model::EventSettings& settings, const model::Event* existing) {
    model::FieldErrors errors = model::validate_event(settings);
    // An event may keep an end in the past (a read-modify-write of an ended event must
    // round-trip); a new or moved end must lie ahead.
    if (!existing || existing->settings.event_end_time.text != settings.event_end_time.text)
        for (model::FieldError& error : model::check_event_not_over(settings, now)) errors.push_back(std::move(error));
    if (!errors.empty()) throw Error::invalid(std::move(errors));

    const std::string own_id = existing ? existing->id : "";
    size_t upcoming = settings.occupied_until() > now ? 1 : 0;
    for (const model::Event& other : store::all_events(connection, room.id)) {
        if (other.id == own_id) continue;
        if (other.settings.name == settings.name)
            throw Error::conflict("name", "an event named " + settings.name + " already exists in waiting room " +
                                              room.settings.name);
        if (model::events_overlap(settings, other.settings))
            throw Error::conflict("event_start_time",
                                  "the event overlaps event " + other.settings.name + " (" +
                                      (other.settings.prequeue_start_time ? other.settings.prequeue_start_time->text
                                                                          : other.settings.event_start_time.text) +
                                      " to " + other.settings.event_end_time.text +
                                      "); the events of a room, prequeue included, must not overlap");
        if (other.settings.occupied_until() > now) ++upcoming;
    }
    if (upcoming > model::k_max_upcoming_events)
        throw Error::invalid("event", "a waiting room may have at most 5 events that have not ended; delete one first");
}

} // namespace

model::Event resolve_event(store::Connection& connection, const model::Room& room, std::string_view id_or_name) {
    if (util::is_id(id_or_name))
        if (auto event = store::find_event(connection, room.id, id_or_name)) return *event;
    for (model::Event& event : store::all_events(connection, room.id))
        if (event.settings.name == id_or_name) return event;
    throw Error::not_found("event", std::string(id_or_name));
}

model::Event create_event(store::Connection& connection, util::TimePoint now, const model::Room& room,
                          const model::EventSettings& settings) {
    check_event(connection, now, room, settings, nullptr);
    model::Event event{util::new_id(), room.id, settings, now, now};
    store::insert_event(connection, event);
    return event;
}

model::Event update_event(store::Connection& connection, util::TimePoint now, const model::Room& room,
                          const model::Event& existing, const model::EventSettings& settings) {
    if (settings == existing.settings) return existing;
    check_event(connection, now, room, settings, &existing);
    model::Event event = existing;
    event.settings = settings;
    event.modified_on = now;
    store::update_event(connection, event);
    return event;
}

void delete_event(store::Connection& connection, const model::Event& event) { store::delete_event(connection, event.id); }

} // namespace wr::control
