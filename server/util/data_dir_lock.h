#pragma once
// One wr process per data directory: two servers sharing one database would each believe their
// own counters and cookie keys. The lock is flock() on <data_dir>/wr.lock, so the kernel drops it
// when the process dies, however it dies (no stale lock after a crash or SIGKILL).
#include <filesystem>

namespace wr::util {

class DataDirLock {
public:
    // Throws a message naming the directory (and the holder's pid) when another process has it.
    explicit DataDirLock(const std::filesystem::path& data_dir);
    ~DataDirLock();
    DataDirLock(const DataDirLock&) = delete;
    DataDirLock& operator=(const DataDirLock&) = delete;

private:
    int m_fd = -1;
};

} // namespace wr::util
