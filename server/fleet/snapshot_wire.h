#pragma once
// What a control node hands its edges: the configuration document and the cookie keys, in one
// JSON body, so an edge never pairs a configuration with keys from another moment. Its ETag is a
// hash of the body, so an edge that has it gets 304 however often the database was written.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "util/key_ring.h"
#include "model/config_document.h"

namespace wr::fleet {

struct EdgeSnapshot {
    model::ConfigDocument document;
    std::shared_ptr<const util::KeyRing> keys;
};

// {"format": 1, "document": {…}, "cookie_keys": [{"id": 1, "key": "<64 hex>"}, …]}
std::string snapshot_body(const model::ConfigDocument& document, const util::KeyRing& keys);

// Reads a body written by snapshot_body; nullopt with `error` saying what is wrong.
std::optional<EdgeSnapshot> read_snapshot(std::string_view body, std::string& error);

// A strong ETag for a body: "\"<32 hex characters of its SHA-256>\"".
std::string etag_of(std::string_view body);

} // namespace wr::fleet
