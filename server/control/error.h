#pragma once
// The one exception of the control plane. Handlers and services throw it; the admin server
// turns it into a v4 error envelope with the matching HTTP status (never 409 or 5xx for bad
// input: Cloudflare's SDKs retry those).
#include <stdexcept>
#include <string>
#include <string_view>

#include "model/field_error.h"

namespace wr::control {

// wr's error codes; stable, documented in docs/api.md.
enum class ErrorCode {
    invalid_json = 1001,
    validation = 1002,
    conflict = 1003,
    not_found = 1004,
    missing_token = 1005,
    invalid_token = 1006,
    insufficient_scope = 1007,
    wrong_zone = 1008,
    body_too_large = 1009,
    unsupported_media_type = 1010,
    method_not_allowed = 1011,
    bad_query = 1012,
    storage_unavailable = 1013, // the database cannot be written: disk full, read-only data dir
    wrong_token_kind = 1014,    // an edge token off the edge routes, or another token on them
    control_unreachable = 1015, // an edge node cannot have a token checked: its control node is away
    node_claimed = 1016,        // an edge pushes under a node name that another edge token pushed under first
    busy = 1017,                // the admin listener has no room for the request now (503; retry)
    unreadable_request = 1018,  // not HTTP/1.1 the admin listener can read: malformed, head too large, too slow
    internal = 1099,
};

// An answer lists at most this many problems and then how many more there were: a body of a
// million bad elements gets a short answer, not a million lines.
inline constexpr size_t k_max_listed_errors = 20;

class Error : public std::runtime_error {
public:
    // More than k_max_listed_errors + 1 errors are cut to the first k_max_listed_errors and a
    // last "…and N more errors".
    Error(ErrorCode code, int http_status, model::FieldErrors errors);

    static Error invalid(model::FieldErrors errors) { return Error(ErrorCode::validation, 400, std::move(errors)); }
    static Error invalid(std::string field, std::string message) { return invalid({{std::move(field), std::move(message)}}); }
    static Error conflict(std::string field, std::string message) {
        return Error(ErrorCode::conflict, 400, {{std::move(field), std::move(message)}});
    }
    // "waiting_room 'shop' not found"; the id as the client sent it, made printable.
    static Error not_found(const std::string& resource, std::string_view id);
    static Error bad_query(std::string parameter, std::string message) {
        return Error(ErrorCode::bad_query, 400, {{std::move(parameter), std::move(message)}});
    }
    static Error of(ErrorCode code, int http_status, std::string message) {
        return Error(code, http_status, {{"", std::move(message)}});
    }

    ErrorCode code() const { return m_code; }
    int http_status() const { return m_http_status; }
    const model::FieldErrors& errors() const { return m_errors; }

private:
    ErrorCode m_code;
    int m_http_status;
    model::FieldErrors m_errors;
};

} // namespace wr::control
