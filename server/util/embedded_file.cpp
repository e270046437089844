// Looks up one file among those the build embedded.
#include "util/embedded_files.h"

namespace wr::util {

std::optional<std::string_view> embedded_file(std::string_view path) {
    for (const EmbeddedFile& file : embedded_files())
        if (file.path == path) return file.content;
    return std::nullopt;
}

} // namespace wr::util
