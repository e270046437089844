// Writes and reads the body edges pull from their control node.
#include "fleet/snapshot_wire.h"

#include <nlohmann/json.hpp>

#include "model/config_document_json.h"
#include "util/secure.h"

namespace wr::fleet {

std::string snapshot_body(const model::ConfigDocument& document, const util::KeyRing& keys) {
    nlohmann::json cookie_keys = nlohmann::json::array();
    for (const util::CookieKey& key : keys.keys()) cookie_keys.push_back({{"id", key.id}, {"key", util::key_to_hex(key)}});
    return nlohmann::json{{"document", model::config_document_to_json(document)}, {"cookie_keys", std::move(cookie_keys)}}.dump();
}

std::optional<EdgeSnapshot> read_snapshot(std::string_view body, std::string& error) {
    const nlohmann::json json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        error = "the configuration is not a JSON object";
        return std::nullopt;
    }
    EdgeSnapshot snapshot;
    const auto document = json.find("document");
    if (document == json.end()) {
        error = "the configuration has no document";
        return std::nullopt;
    }
    if (const model::FieldErrors errors = model::read_config_document(*document, snapshot.document); !errors.empty()) {
        error = "the configuration document is not valid: " + errors.front().text();
        return std::nullopt;
    }
    const auto keys = json.find("cookie_keys");
    if (keys == json.end() || !keys->is_array() || keys->empty()) {
        error = "the configuration has no cookie keys";
        return std::nullopt;
    }
    std::vector<util::CookieKey> ring;
    for (const nlohmann::json& entry : *keys) {
        const auto id = entry.is_object() ? entry.find("id") : entry.end();
        const auto hex = entry.is_object() ? entry.find("key") : entry.end();
        const bool id_ok = id != entry.end() && id->is_number_unsigned() && id->get<uint64_t>() <= 255;
        const auto key = hex != entry.end() && hex->is_string() ? util::key_from_hex(hex->get<std::string>()) : std::nullopt;
        if (!id_ok || !key) {
            error = "a cookie key is not {\"id\": 0..255, \"key\": \"<64 hex>\"}";
            return std::nullopt;
        }
        ring.push_back(util::CookieKey{static_cast<uint8_t>(id->get<uint64_t>()), *key});
    }
    snapshot.keys = std::make_shared<const util::KeyRing>(std::move(ring));
    return snapshot;
}

std::string etag_of(std::string_view body) { return "\"" + util::sha256_hex(body).substr(0, 32) + "\""; }

} // namespace wr::fleet
