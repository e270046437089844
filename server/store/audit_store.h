#pragma once
// SQL for the audit log.
#include <optional>
#include <string>
#include <vector>

#include "model/audit.h"
#include "store/database.h"
#include "store/sql.h"

namespace wr::store {

// Which entries a listing wants: a time window, and an object (its id or name, or its zone's id
// or name) and type when given.
struct AuditFilter {
    std::optional<util::TimePoint> since; // inclusive
    std::optional<util::TimePoint> until; // exclusive
    std::string object;
    std::string type;
    std::string zone_id; // a token bound to one zone sees that zone's entries only
};

void insert_audit_entry(Connection& connection, const model::AuditEntry& entry);
// Newest first.
std::vector<model::AuditEntry> list_audit_entries(Connection& connection, const AuditFilter& filter, PageWindow window);
int64_t count_audit_entries(Connection& connection, const AuditFilter& filter);
// Deletes entries older than `oldest`; returns how many went.
int64_t prune_audit_log(Connection& connection, util::TimePoint oldest);

} // namespace wr::store
