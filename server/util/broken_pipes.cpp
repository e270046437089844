// SIGPIPE blocked per thread.
#include "util/broken_pipes.h"

#include <csignal>
#include <pthread.h>

namespace wr::util {

void block_broken_pipe_signal() {
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
}

} // namespace wr::util
