// Reads and atomically writes the small files of the data directory.
#include "util/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

namespace wr::util {
namespace {

void write_atomically(const std::filesystem::path& path, std::string_view content, mode_t mode) {
    const std::filesystem::path temporary = path.string() + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(errno));
    // The mode given to open() is filtered by the umask; secrets must end up exactly 0600.
    ::fchmod(fd, mode);
    size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string reason = std::strerror(errno);
            ::close(fd);
            throw std::runtime_error("cannot write " + temporary.string() + ": " + reason);
        }
        written += static_cast<size_t>(n);
    }
    ::fsync(fd);
    ::close(fd);
    std::filesystem::rename(temporary, path);
}

} // namespace

std::optional<std::string> read_text_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

void write_secret_file(const std::filesystem::path& path, std::string_view content) {
    write_atomically(path, content, 0600);
}

void create_private_directory(const std::filesystem::path& path) {
    if (std::filesystem::is_directory(path)) {
        // It holds the admin token, the cookie keys and the database: an existing directory that
        // its group or others may enter or read is made private, or wr does not start.
        struct stat info {};
        if (::stat(path.c_str(), &info) != 0 || (info.st_mode & 077) == 0) return;
        char was[8];
        std::snprintf(was, sizeof was, "%04o", static_cast<unsigned>(info.st_mode & 07777));
        if (::chmod(path.c_str(), 0700) != 0)
            throw std::runtime_error("the data directory " + path.string() + " is open to its group or others (mode " + was +
                                     ") and cannot be made 0700: " + std::strerror(errno) + "; run chmod 700 on it, or use another");
        log_warn("data", "the data directory " + path.string() + " was mode " + was + "; made it 0700 (it holds tokens and keys)");
        return;
    }
    if (path.has_parent_path() && !path.parent_path().empty()) {
        std::error_code error;
        std::filesystem::create_directories(path.parent_path(), error);
        if (error) throw std::runtime_error("cannot create the data directory " + path.string() + ": " + error.message());
    }
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create the data directory " + path.string() + ": " + std::strerror(errno));
    // mkdir's mode is filtered by the umask; 0700 is what we mean.
    ::chmod(path.c_str(), 0700);
}

void make_private_file(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        // A read-only data dir: SQLite's own error names the problem better; leave it to it.
        return;
    }
    ::fchmod(fd, 0600);
    ::close(fd);
}

void write_text_file(const std::filesystem::path& path, std::string_view content) {
    write_atomically(path, content, 0644);
}

} // namespace wr::util
