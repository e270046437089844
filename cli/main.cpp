// wr: the waiting room server and the command line that manages it.
#include "commands.h"

int main(int argc, char** argv) { return wr::cli::run(argc, argv); }
