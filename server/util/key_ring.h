#pragma once
// The keys that seal waiting-room cookies: <data-dir>/cookie.key (mode 0600), one key per line,
// newest last. New cookies are sealed with the newest key; every key still in the file opens
// cookies, so `wr keys rotate` never logs anyone out.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wr::util {

inline constexpr size_t k_kept_keys = 5;

struct CookieKey {
    uint8_t id = 0;
    std::array<uint8_t, 32> key{}; // AES-256
};

// A key as 64 lowercase hex characters (how files and control nodes carry it), and back;
// nullopt when the text is not that.
std::string key_to_hex(const CookieKey& key);
std::optional<std::array<uint8_t, 32>> key_from_hex(std::string_view hex);

class KeyRing {
public:
    explicit KeyRing(std::vector<CookieKey> keys);

    const CookieKey& current() const { return m_keys.back(); }
    const CookieKey* find(uint8_t id) const;
    const std::vector<CookieKey>& keys() const { return m_keys; }

    // Reads the key file, creating it with one fresh key when it does not exist. Throws when the
    // file is unreadable or malformed.
    static KeyRing load_or_create(const std::filesystem::path& path);
    // Adds a fresh key (keeping the newest k_kept_keys) and returns the new ring.
    static KeyRing rotate(const std::filesystem::path& path);

private:
    std::vector<CookieKey> m_keys;
};

} // namespace wr::util
