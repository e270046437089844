#pragma once
// A throwaway self-signed certificate for "localhost", written as PEM files.
#include <filesystem>

namespace wr::test {

struct TlsFiles {
    std::filesystem::path certificate;
    std::filesystem::path private_key;
};

TlsFiles write_self_signed_certificate(const std::filesystem::path& directory);

} // namespace wr::test
