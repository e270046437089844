// Seals and opens waiting-room cookies with AES-256-GCM.
#include "edge/cookie.h"

#include <algorithm>
#include <cstring>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdexcept>

#include "util/base64.h"

namespace wr::edge {
namespace {

constexpr uint8_t k_format_version = 1;
constexpr size_t k_nonce_size = 12;
constexpr size_t k_tag_size = 16;
// version, flags, session id, bucket (ms), arrived (s), accepted at (s), last check-in (s), refresh interval
constexpr size_t k_plaintext_size = 1 + 1 + 8 + 8 + 4 + 4 + 4 + 1;
constexpr size_t k_sealed_size = 1 + k_nonce_size + k_plaintext_size + k_tag_size;

constexpr uint8_t k_flag_admitted = 1;
constexpr uint8_t k_flag_shuffled = 2;
constexpr uint8_t k_flag_infinite_queue = 4;
constexpr uint8_t k_flag_turnstile_answered = 8;

void put(uint8_t*& at, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) *at++ = static_cast<uint8_t>(value >> (8 * i));
}

uint64_t take(const uint8_t*& at, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value |= uint64_t{*at++} << (8 * i);
    return value;
}

uint32_t epoch_seconds(util::TimePoint time) {
    const int64_t seconds = std::chrono::floor<std::chrono::seconds>(time.time_since_epoch()).count();
    return static_cast<uint32_t>(std::clamp<int64_t>(seconds, 0, UINT32_MAX));
}

util::TimePoint from_seconds(uint32_t seconds) { return util::TimePoint{std::chrono::seconds{seconds}}; }

} // namespace

CookieCodec::CookieCodec() : m_encrypt(EVP_CIPHER_CTX_new()), m_decrypt(EVP_CIPHER_CTX_new()) {
    if (!m_encrypt || !m_decrypt) throw std::runtime_error("cannot create an OpenSSL cipher context");
    if (RAND_bytes(m_nonce_prefix.data(), static_cast<int>(m_nonce_prefix.size())) != 1)
        throw std::runtime_error("the system random source failed");
}

CookieCodec::~CookieCodec() {
    EVP_CIPHER_CTX_free(m_encrypt);
    EVP_CIPHER_CTX_free(m_decrypt);
}

void CookieCodec::use_key(EVP_CIPHER_CTX* context, bool encrypt, const util::CookieKey& key, std::array<uint8_t, 32>& loaded,
                          bool& has_key) {
    if (has_key && loaded == key.key) return;
    const int ok = encrypt ? EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nullptr, key.key.data(), nullptr)
                           : EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nullptr, key.key.data(), nullptr);
    if (ok != 1) throw std::runtime_error("loading a cookie key failed");
    loaded = key.key;
    has_key = true;
}

void CookieCodec::next_nonce(uint8_t* nonce) {
    if (++m_nonce_counter == 0 &&
        RAND_bytes(m_nonce_prefix.data(), static_cast<int>(m_nonce_prefix.size())) != 1)
        throw std::runtime_error("the system random source failed");
    std::memcpy(nonce, m_nonce_prefix.data(), m_nonce_prefix.size());
    std::memcpy(nonce + m_nonce_prefix.size(), &m_nonce_counter, sizeof m_nonce_counter);
}

std::string CookieCodec::seal(const queue::Ticket& ticket, std::string_view room_id, const util::KeyRing& keys) {
    std::string sealed;
    seal_into(sealed, ticket, room_id, keys);
    return sealed;
}

void CookieCodec::seal_into(std::string& out, const queue::Ticket& ticket, std::string_view room_id, const util::KeyRing& keys) {
    const util::CookieKey& key = keys.current();
    uint8_t plaintext[k_plaintext_size];
    uint8_t* at = plaintext;
    put(at, k_format_version, 1);
    put(at, (ticket.admitted() ? k_flag_admitted : 0) | (ticket.shuffled ? k_flag_shuffled : 0) |
                (ticket.infinite_queue ? k_flag_infinite_queue : 0) |
                (ticket.turnstile_answered ? k_flag_turnstile_answered : 0), 1);
    put(at, ticket.session_id, 8);
    put(at, static_cast<uint64_t>(ticket.bucket.time_since_epoch().count()), 8);
    put(at, epoch_seconds(ticket.arrived), 4);
    put(at, ticket.accepted_at ? epoch_seconds(*ticket.accepted_at) : 0, 4);
    put(at, epoch_seconds(ticket.last_check_in), 4);
    put(at, static_cast<uint64_t>(std::clamp(ticket.refresh_interval_seconds, 1, 255)), 1);

    uint8_t sealed[k_sealed_size];
    sealed[0] = key.id;
    uint8_t* nonce = sealed + 1;
    uint8_t* ciphertext = nonce + k_nonce_size;
    next_nonce(nonce);
    use_key(m_encrypt, true, key, m_encrypt_key, m_has_encrypt_key);
    int length = 0;
    bool ok = EVP_EncryptInit_ex(m_encrypt, nullptr, nullptr, nullptr, nonce) == 1 &&
              EVP_EncryptUpdate(m_encrypt, nullptr, &length, reinterpret_cast<const uint8_t*>(room_id.data()),
                                static_cast<int>(room_id.size())) == 1 &&
              EVP_EncryptUpdate(m_encrypt, ciphertext, &length, plaintext, static_cast<int>(k_plaintext_size)) == 1 &&
              EVP_EncryptFinal_ex(m_encrypt, ciphertext + length, &length) == 1 &&
              EVP_CIPHER_CTX_ctrl(m_encrypt, EVP_CTRL_GCM_GET_TAG, k_tag_size, ciphertext + k_plaintext_size) == 1;
    if (!ok) throw std::runtime_error("sealing a cookie failed");
    util::base64url_append(sealed, k_sealed_size, out);
}

std::optional<queue::Ticket> CookieCodec::open(std::string_view cookie, std::string_view room_id, const util::KeyRing& keys) {
    if (cookie.size() != (k_sealed_size * 4 + 2) / 3) return std::nullopt;
    uint8_t sealed[k_sealed_size];
    if (util::base64url_decode(cookie, sealed, k_sealed_size) != k_sealed_size) return std::nullopt;
    const util::CookieKey* key = keys.find(sealed[0]);
    if (!key) return std::nullopt;
    const uint8_t* nonce = sealed + 1;
    const uint8_t* ciphertext = nonce + k_nonce_size;
    uint8_t tag[k_tag_size];
    std::memcpy(tag, ciphertext + k_plaintext_size, k_tag_size);
    uint8_t plaintext[k_plaintext_size];
    int length = 0;
    use_key(m_decrypt, false, *key, m_decrypt_key, m_has_decrypt_key);
    const bool ok = EVP_DecryptInit_ex(m_decrypt, nullptr, nullptr, nullptr, nonce) == 1 &&
                    EVP_DecryptUpdate(m_decrypt, nullptr, &length, reinterpret_cast<const uint8_t*>(room_id.data()),
                                      static_cast<int>(room_id.size())) == 1 &&
                    EVP_DecryptUpdate(m_decrypt, plaintext, &length, ciphertext, static_cast<int>(k_plaintext_size)) == 1 &&
                    EVP_CIPHER_CTX_ctrl(m_decrypt, EVP_CTRL_GCM_SET_TAG, k_tag_size, tag) == 1 &&
                    EVP_DecryptFinal_ex(m_decrypt, plaintext + length, &length) == 1;
    if (!ok) return std::nullopt;

    const uint8_t* at = plaintext;
    if (take(at, 1) != k_format_version) return std::nullopt;
    const auto flags = static_cast<uint8_t>(take(at, 1));
    queue::Ticket ticket;
    ticket.session_id = take(at, 8);
    ticket.bucket = util::TimePoint{util::Milliseconds{static_cast<int64_t>(take(at, 8))}};
    ticket.arrived = from_seconds(static_cast<uint32_t>(take(at, 4)));
    const auto accepted = static_cast<uint32_t>(take(at, 4));
    if (flags & k_flag_admitted) ticket.accepted_at = from_seconds(accepted);
    ticket.last_check_in = from_seconds(static_cast<uint32_t>(take(at, 4)));
    ticket.refresh_interval_seconds = static_cast<int>(take(at, 1));
    ticket.shuffled = flags & k_flag_shuffled;
    ticket.infinite_queue = flags & k_flag_infinite_queue;
    ticket.turnstile_answered = flags & k_flag_turnstile_answered;
    return ticket;
}

std::string cookie_name(std::string_view suffix) {
    std::string name = "__cfwaitingroom";
    if (!suffix.empty()) {
        name += '_';
        name += suffix;
    }
    return name;
}

std::optional<std::string_view> find_cookie(std::string_view header, std::string_view name) {
    while (!header.empty()) {
        const size_t end = header.find(';');
        std::string_view pair = header.substr(0, end);
        while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
        const size_t equals = pair.find('=');
        if (equals != std::string_view::npos && pair.substr(0, equals) == name) {
            std::string_view value = pair.substr(equals + 1);
            while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
            if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
            return value;
        }
        if (end == std::string_view::npos) break;
        header.remove_prefix(end + 1);
    }
    return std::nullopt;
}

std::string remove_cookie(std::string_view header, std::string_view name) {
    std::string kept;
    while (!header.empty()) {
        const size_t end = header.find(';');
        std::string_view pair = header.substr(0, end);
        while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
        const size_t equals = pair.find('=');
        if (!pair.empty() && (equals == std::string_view::npos || pair.substr(0, equals) != name)) {
            if (!kept.empty()) kept += "; ";
            kept += pair;
        }
        if (end == std::string_view::npos) break;
        header.remove_prefix(end + 1);
    }
    return kept;
}

} // namespace wr::edge
