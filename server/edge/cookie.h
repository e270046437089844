#pragma once
// The waiting-room cookie: a queue::Ticket sealed with AES-256-GCM. The wire form is base64url of
// key id (1 byte) | nonce (12) | ciphertext | tag (16); the room id is authenticated as
// associated data, so a cookie opens only in the room that issued it. Any cookie that is
// truncated, tampered with, sealed by an unknown key or for another room opens to nothing:
// the visitor is simply new.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "util/key_ring.h"
#include "queue/ticket.h"

typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;

namespace wr::edge {

// One per thread: it reuses its OpenSSL context, which triples the speed (docs/design.md,
// "Platform traps").
class CookieCodec {
public:
    CookieCodec();
    ~CookieCodec();
    CookieCodec(const CookieCodec&) = delete;
    CookieCodec& operator=(const CookieCodec&) = delete;

    std::string seal(const queue::Ticket& ticket, std::string_view room_id, const util::KeyRing& keys);
    // The same, appended to `out`: the edge writes it straight into the Set-Cookie it reuses.
    void seal_into(std::string& out, const queue::Ticket& ticket, std::string_view room_id, const util::KeyRing& keys);
    std::optional<queue::Ticket> open(std::string_view cookie, std::string_view room_id, const util::KeyRing& keys);

private:
    // Loads the key schedule only when the key changes; each seal or open then sets just the nonce.
    void use_key(EVP_CIPHER_CTX* context, bool encrypt, const util::CookieKey& key, std::array<uint8_t, 32>& loaded, bool& has_key);
    void next_nonce(uint8_t* nonce);

    EVP_CIPHER_CTX* m_encrypt;
    EVP_CIPHER_CTX* m_decrypt;
    std::array<uint8_t, 32> m_encrypt_key{};
    std::array<uint8_t, 32> m_decrypt_key{};
    bool m_has_encrypt_key = false;
    bool m_has_decrypt_key = false;
    // Nonces: 8 random bytes drawn once, then a counter; unique per key without a syscall each.
    std::array<uint8_t, 8> m_nonce_prefix{};
    uint32_t m_nonce_counter = 0;
};

// "__cfwaitingroom" or "__cfwaitingroom_<suffix>".
std::string cookie_name(std::string_view suffix);

// The value of cookie `name` in a Cookie header, or nullopt.
std::optional<std::string_view> find_cookie(std::string_view cookie_header, std::string_view name);

// The Cookie header without cookie `name` (what the origin should receive).
std::string remove_cookie(std::string_view cookie_header, std::string_view name);

} // namespace wr::edge
