#pragma once
// Writes the audit log's entries of one change inside the change's own transaction: a handler
// (or `apply`) makes an AuditTrail from the connection it changes the configuration through, and
// each created(), updated() or deleted() inserts its entry there. A change that fails rolls its
// entries back with it; an entry that cannot be written fails the change.
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "model/audit.h"
#include "model/event.h"
#include "model/notification.h"
#include "model/room.h"
#include "model/rule.h"
#include "model/token.h"
#include "model/zone.h"
#include "store/database.h"

namespace wr::control {

// Field names whose values the log never shows (token values, webhook secrets, …).
const std::vector<std::string_view>& secret_fields();

class AuditTrail {
public:
    AuditTrail(store::Connection& connection, model::AuditActor actor);

    void created(const model::AuditObject& object, const nlohmann::json& after);
    // Writes nothing when no field differs.
    void updated(const model::AuditObject& object, const nlohmann::json& before, const nlohmann::json& after);
    void deleted(const model::AuditObject& object, const nlohmann::json& before);

    // A room's rules before and after a change, as one entry per rule created, changed (its
    // fields or its position) or deleted; rules are matched by id.
    void rules_changed(const model::Zone& zone, const model::Room& room, const std::vector<model::Rule>& before,
                       const std::vector<model::Rule>& after);

    // The tool the change came through, for changes made on behalf of another (apply).
    void set_via(std::string via) { m_actor.via = std::move(via); }
    size_t written() const { return m_written; }

private:
    void write(std::string action, const model::AuditObject& object, const nlohmann::json& before, const nlohmann::json& after);

    store::Connection& m_connection;
    model::AuditActor m_actor;
    size_t m_written = 0;
};

// Each kind of object as the log names it, and the fields it compares (no ids or timestamps).
model::AuditObject audit_object(const model::Zone& zone);
nlohmann::json audit_view(const model::Zone& zone);
model::AuditObject audit_settings_object(const model::Zone& zone);
model::AuditObject audit_object(const model::Zone& zone, const model::Room& room);
model::AuditObject audit_object(const model::Zone& zone, const model::Room& room, const model::Event& event);
model::AuditObject audit_object(const model::Token& token);
nlohmann::json audit_view(const model::Token& token);
model::AuditObject audit_object(const model::Destination& destination);
nlohmann::json audit_view(const model::Destination& destination); // the secret too, which the trail masks

} // namespace wr::control
