// Loads, creates and rotates the cookie keys.
#include "util/key_ring.h"

#include <sstream>
#include <stdexcept>

#include "util/files.h"
#include "util/secure.h"

namespace wr::util {

std::string key_to_hex(const CookieKey& key) { return util::hex_encode(key.key.data(), key.key.size()); }

std::optional<std::array<uint8_t, 32>> key_from_hex(std::string_view hex) {
    if (hex.size() != 64) return std::nullopt;
    std::array<uint8_t, 32> key{};
    for (size_t i = 0; i < 32; ++i) {
        const auto nibble = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            return -1;
        };
        const int high = nibble(hex[2 * i]);
        const int low = nibble(hex[2 * i + 1]);
        if (high < 0 || low < 0) return std::nullopt;
        key[i] = static_cast<uint8_t>(high * 16 + low);
    }
    return key;
}

namespace {

std::vector<CookieKey> parse(const std::string& text, const std::filesystem::path& path) {
    std::vector<CookieKey> keys;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string version, id, hex;
        fields >> version >> id >> hex;
        const auto key = key_from_hex(hex);
        if (version != "v1" || id.empty() || id.size() > 3 || id.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(id) > 255 || !key)
            throw std::runtime_error(path.string() + " is not a wr cookie key file (expected lines \"v1 <id> <64 hex>\")");
        keys.push_back(CookieKey{static_cast<uint8_t>(std::stoi(id)), *key});
    }
    if (keys.empty()) throw std::runtime_error(path.string() + " holds no cookie key");
    return keys;
}

CookieKey fresh_key(uint8_t id) {
    CookieKey key;
    key.id = id;
    const std::vector<uint8_t> bytes = util::random_bytes(32);
    std::copy(bytes.begin(), bytes.end(), key.key.begin());
    return key;
}

void save(const std::filesystem::path& path, const std::vector<CookieKey>& keys) {
    std::string text = "# wr cookie keys: newest last; keep this file secret (mode 0600)\n";
    for (const CookieKey& key : keys)
        text += "v1 " + std::to_string(key.id) + " " + key_to_hex(key) + "\n";
    util::write_secret_file(path, text);
}

} // namespace

KeyRing::KeyRing(std::vector<CookieKey> keys) : m_keys(std::move(keys)) {
    if (m_keys.empty()) throw std::runtime_error("a key ring needs at least one key");
}

const CookieKey* KeyRing::find(uint8_t id) const {
    for (const CookieKey& key : m_keys)
        if (key.id == id) return &key;
    return nullptr;
}

KeyRing KeyRing::load_or_create(const std::filesystem::path& path) {
    if (const auto text = util::read_text_file(path)) return KeyRing(parse(*text, path));
    if (std::filesystem::exists(path)) throw std::runtime_error("cannot read " + path.string());
    std::vector<CookieKey> keys{fresh_key(1)};
    save(path, keys);
    return KeyRing(std::move(keys));
}

KeyRing KeyRing::rotate(const std::filesystem::path& path) {
    std::vector<CookieKey> keys = load_or_create(path).keys();
    const uint8_t next = static_cast<uint8_t>(keys.back().id + 1 == 0 ? 1 : keys.back().id + 1);
    keys.push_back(fresh_key(next));
    if (keys.size() > k_kept_keys) keys.erase(keys.begin(), keys.end() - static_cast<std::ptrdiff_t>(k_kept_keys));
    save(path, keys);
    return KeyRing(std::move(keys));
}

} // namespace wr::util
