#pragma once
// What one admin request body may cost once parsed. A JSON text can take far more memory as a
// document than as bytes (a 4 MiB body of nested or empty arrays is over 100 MiB of nodes), so
// every body is first read by a SAX pass that builds nothing and stops at the first limit passed;
// only a body within the limits becomes a document.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace wr::api {

struct JsonLimits {
    // Arrays and objects inside one another. wr's deepest document (an apply with zones, rooms,
    // events and rules) nests 7 deep.
    size_t max_depth = 32;
    // The document's size in memory as nlohmann::json holds it, estimated while reading (a value,
    // its container, an object's member, a string's characters; a little more than it really
    // takes). wr's own documents come to 6 to 7.5 times their size as compact text, long strings
    // (custom pages) to about once; hostile ones to 30 times.
    size_t max_document_bytes = 40 * 1024 * 1024;
};

// The limits for bodies of at most `max_body_bytes`: a document may take ten times that in
// memory (40 MiB for the default 4 MiB), never less than 1 MiB.
JsonLimits json_limits_for(size_t max_body_bytes);

// What a body would cost as a document, as far as the SAX pass read it.
struct JsonCost {
    size_t depth = 0;          // the deepest nesting seen
    size_t values = 0;         // values of any kind
    size_t document_bytes = 0; // the estimate compared with max_document_bytes
};

// The estimate of a whole body, for tests and for choosing the limits: no limit applies.
JsonCost json_cost(std::string_view body);

// Empty when the body is within the limits, or is not JSON at all (the handler reports that,
// with its own 400 or 415); otherwise the sentence naming the limit it passed.
std::optional<std::string> json_limit_exceeded(std::string_view body, const JsonLimits& limits);

} // namespace wr::api
