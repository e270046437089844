#pragma once
// A write to a socket or pipe whose reader has gone raises SIGPIPE, which ends the process. Asio
// and wr's TLS sockets send with MSG_NOSIGNAL; libraries that write with write(2) — hiredis, a
// log file that is a pipe — run on threads that block the signal, so the write fails with EPIPE
// instead.
namespace wr::util {

// Blocks SIGPIPE for the calling thread (call it first thing on the thread).
void block_broken_pipe_signal();

} // namespace wr::util
