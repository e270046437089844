#pragma once
// A throwaway self-signed certificate for "localhost" and 127.0.0.1, written as PEM files; it is
// its own CA, so clients can be told to trust it.
#include <filesystem>

namespace wr::test {

struct TlsFiles {
    std::filesystem::path certificate;
    std::filesystem::path private_key;
};

TlsFiles write_self_signed_certificate(const std::filesystem::path& directory);

} // namespace wr::test
