// Sends N requests without a cookie (N distinct new visitors) over one keep-alive connection.
//   wr_bench_visitors PORT HOST COUNT
#include <httplib.h>
#include <iostream>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: wr_bench_visitors PORT HOST COUNT\n";
        return 2;
    }
    httplib::Client client("127.0.0.1", std::stoi(argv[1]));
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);
    const httplib::Headers headers{{"Host", argv[2]}};
    const long count = std::stol(argv[3]);
    long failed = 0;
    for (long i = 0; i < count; ++i)
        if (!client.Get("/", headers)) ++failed;
    if (failed) std::cerr << failed << " requests failed\n";
    return failed ? 1 : 0;
}
