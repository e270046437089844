#pragma once
// Declarative configuration: `wr export` writes the whole configuration as one JSON document
// without ids or timestamps, and `wr apply -f` makes the store match such a document, in one
// transaction, so that CI can manage rooms as files.
//
// {"zones":[{"name","origin","settings":{…},
//            "waiting_rooms":[{<room fields>,"events":[…],"rules":[…]}]}],
//  "notification_destinations":[{"name","url","kinds","wait_threshold_minutes","enabled"}]}
//
// Zones match by name, rooms by name within their zone, events by name within their room,
// rules by position, destinations by name. An event that has ended is kept when it exists and
// skipped (never created) when it does not. A room without an "events" (or "rules") key keeps its
// events (rules); a document without "notification_destinations" keeps them. Destinations'
// secrets are never exported: one given without a secret keeps the one it has.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/database.h"
#include "util/clock.h"

namespace wr::control {

class AuditTrail;

struct Change {
    std::string action;              // create, update, delete; skip: in the document, but not applied (see reason)
    std::string kind;                // zone, settings, waiting_room, event, rules, notification_destination, token
    std::string target;              // "example.com", "example.com/shop", "example.com/shop/launch"
    std::vector<std::string> fields; // for updates: the fields that change
    std::string reason;              // for skips: why
};

struct ApplyOptions {
    bool prune = false; // delete zones (their tokens too), rooms and events the document does not mention
};

// Applies the document inside the caller's transaction; throws Error (400) naming the
// document path of the first invalid part ("zones[0].waiting_rooms[1].total_active_users"), or
// of every field the document's parts do not have ("…sesion_duration: unknown field (did you
// mean session_duration?)"), before anything is applied.
// Each object it creates, changes or deletes gets its entry in `trail` (when given), field by field.
std::vector<Change> apply_document(store::Connection& connection, util::TimePoint now, const nlohmann::json& document,
                                   const ApplyOptions& options, AuditTrail* trail = nullptr);

// The whole configuration; two exports of an unchanged configuration are identical.
nlohmann::json export_document(store::Connection& connection);

nlohmann::json to_json(const Change& change);

} // namespace wr::control
