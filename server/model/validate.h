#pragma once
// The rules a configuration must satisfy on its own. Pure: the rules that need other records
// (uniqueness, overlapping events) live in control/, and use the helpers at the bottom.
#include <string_view>

#include "model/event.h"
#include "model/field_error.h"
#include "model/room.h"
#include "model/rule.h"
#include "model/zone.h"

namespace wr::model {

FieldErrors validate_zone(const ZoneSettings& zone);

// zone_name: the domain of the room's zone; every host must lie inside it.
FieldErrors validate_room(const RoomSettings& room, std::string_view zone_name);

// Everything but "ends in the future", which depends on the clock: see check_event_not_over.
FieldErrors validate_event(const EventSettings& event);
FieldErrors check_event_not_over(const EventSettings& event, util::TimePoint now);

FieldErrors validate_rule(const RuleSettings& rule);

// Letters, digits, '_' and '-', 1 to 255 characters (room, event and cookie suffix names).
bool is_valid_name(std::string_view name);
// Why a zone, room, event or destination may not be named like an id (32 lowercase hex
// characters): paths take a name where an id goes, and look an id up first, so such a name could
// make another record's path answer for this one.
inline constexpr const char* k_id_shaped_name =
    "must not be 32 lowercase hex characters, the shape of an id (a path would look it up as another record's id)";
// A DNS name: labels of letters, digits and '-', case-insensitive.
bool is_valid_hostname(std::string_view host);
// True when host is the zone's domain or a subdomain of it (case-insensitive).
bool host_in_zone(std::string_view host, std::string_view zone_name);

// True when the two events' occupied windows intersect.
bool events_overlap(const EventSettings& a, const EventSettings& b);

} // namespace wr::model
