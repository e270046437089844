// Takes the data directory's lock, or explains who has it.
#include "util/data_dir_lock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/files.h"

namespace wr::util {

DataDirLock::DataDirLock(const std::filesystem::path& data_dir) {
    create_private_directory(data_dir);
    const std::filesystem::path path = data_dir / "wr.lock";
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (m_fd < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
    ::fchmod(m_fd, 0600);
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        const std::string holder = read_text_file(path).value_or("");
        ::close(m_fd);
        m_fd = -1;
        if (error != EWOULDBLOCK) throw std::runtime_error("cannot lock " + path.string() + ": " + std::strerror(error));
        throw std::runtime_error("the data directory " + data_dir.string() + " is in use by another wr" +
                                 (holder.empty() ? std::string() : " (pid " + holder.substr(0, holder.find('\n')) + ")") +
                                 "; stop it first, or give this one its own --data-dir");
    }
    // The pid is for the message above; the lock itself is the flock.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(m_fd, 0) == 0) {
        [[maybe_unused]] const ssize_t written = ::pwrite(m_fd, pid.data(), pid.size(), 0);
    }
}

DataDirLock::~DataDirLock() {
    if (m_fd >= 0) ::close(m_fd); // closing releases the flock
}

} // namespace wr::util
