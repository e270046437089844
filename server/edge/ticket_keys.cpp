// Session ticket keys: HKDF-SHA256 of each cookie key, with the hour in the info, so that they
// share nothing with the cookies the same key seals.
#include "edge/ticket_keys.h"

#include <algorithm>
#include <cstring>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <stdexcept>
#include <string>

namespace wr::edge {
namespace {

constexpr char k_salt[] = "wr tls session ticket keys v1";

TicketKey derive(const util::CookieKey& root, int64_t period) {
    std::array<uint8_t, 80> material{};
    std::string info = "hour " + std::to_string(period);
    EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
    EVP_KDF_CTX* context = kdf ? EVP_KDF_CTX_new(kdf) : nullptr;
    EVP_KDF_free(kdf);
    if (!context) throw std::runtime_error("OpenSSL has no HKDF");
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(root.key.data()), root.key.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<char*>(k_salt), sizeof k_salt - 1),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size()),
        OSSL_PARAM_construct_end()};
    const int derived = EVP_KDF_derive(context, material.data(), material.size(), params);
    EVP_KDF_CTX_free(context);
    if (derived != 1) throw std::runtime_error("cannot derive the TLS session ticket keys");
    TicketKey key;
    std::memcpy(key.name.data(), material.data(), 16);
    std::memcpy(key.cipher.data(), material.data() + 16, 32);
    std::memcpy(key.mac.data(), material.data() + 48, 32);
    return key;
}

} // namespace

const TicketKey* TicketKeySet::find(const uint8_t* name) const {
    for (const TicketKey& key : opening)
        if (std::equal(key.name.begin(), key.name.end(), name)) return &key;
    return nullptr;
}

int64_t ticket_key_period(util::TimePoint now) {
    // Floor, also before 1970 (a test clock may be anywhere).
    return std::chrono::floor<std::chrono::duration<int64_t, std::ratio<k_ticket_key_period.count()>>>(now.time_since_epoch()).count();
}

TicketKeySet derive_ticket_keys(const util::KeyRing& ring, util::TimePoint now) {
    TicketKeySet set;
    set.period = ticket_key_period(now);
    set.sealing = derive(ring.current(), set.period);
    for (const util::CookieKey& root : ring.keys())
        for (const int64_t period : {set.period - 1, set.period, set.period + 1}) set.opening.push_back(derive(root, period));
    return set;
}

} // namespace wr::edge
