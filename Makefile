# Thin wrapper: installs what is missing, configures, builds, and runs.
#   make demo   build and start wr in front of a demo origin, with a demo room
#   make test   build and run every test
#   make bench  build with optimisations and compare against nginx (not part of make test)
#   make bench-state  what the shared state costs one Redis core per room-sync (not part of
#                     make test)
#   make bench-guard  the origin guard live: wr in front of wr-capacity-origin and a crowd, with
#                     and without the guard, on one node and on three edges (about an hour)
#   make fuzz   run every libFuzzer target (rule parser, cookie codec, paths and client
#               addresses, room JSON, whole requests through the gate, the proxy's head parser
#               and rewriter, an origin's answers and the reuse of its connection, HTTP/2 frames
#               through nghttp2 into wr's header fields) for FUZZ_SECONDS each
#               (default 60); make test runs each for 3 s
#   make soak   mixed traffic at 1,000 connections for SOAK_SECONDS (default 600), with a report
#   make test-sanitize  build with AddressSanitizer + UBSan in build-asan and run the unit and
#                       integration suites there (CI runs it after make test)
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all deps test-deps build test test-sanitize demo bench bench-state bench-guard fuzz soak clean mutate

all: build

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Four at a time: the unit suite (busy on one core) and the fuzz smoke's clang builds beside the
# integration suite's three shards (each mostly waiting on the processes it starts) and the short
# ones; the browser and deployment runs alone.
test: test-deps build
	ctest --test-dir $(BUILD) -j 4 --output-on-failure

# Sanitizer reports of every process (the tests start wr and the demo origin too) land in
# build-asan/sanitizer/; any report fails the run, even one from a child whose exit code no test reads.
# The unit suite (busy on one core) runs beside the integration suite's three shards (mostly
# waiting on the processes they start), which keeps the sanitizer run's wall time to that of
# its longest part on two cores.
test-sanitize: test-deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWR_SANITIZE=ON
	cmake --build build-asan -j $(JOBS) --target wr wr-demo-origin wr_tests
	rm -rf build-asan/sanitizer && mkdir -p build-asan/sanitizer
	ASAN_OPTIONS=log_path=$(CURDIR)/build-asan/sanitizer/asan:detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=log_path=$(CURDIR)/build-asan/sanitizer/ubsan:print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-asan -R '^(unit|integration-.*)$$' -j 4 --output-on-failure
	@if ls build-asan/sanitizer/* >/dev/null 2>&1; then cat build-asan/sanitizer/*; echo "sanitizer reports above"; exit 1; fi

demo: build
	scripts/demo.sh $(BUILD)/wr

bench:
	@scripts/install-deps.sh bench
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build build-bench -j $(JOBS) --target wr wr-demo-origin wr-stream-origin wr-capacity-origin wr_bench_decision wr_bench_visitors wr_bench_websockets wr_bench_floor
	bench/run.sh build-bench
	bench/origin_cap.sh build-bench
	bench/tls.sh build-bench

bench-state:
	@scripts/install-deps.sh bench
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build build-bench -j $(JOBS) --target wr_bench_state
	bench/state.sh build-bench

# The origin guard's budgets, live (bench/guard.py; each scenario's figures are printed as JSON).
bench-guard:
	@scripts/install-deps.sh bench
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build build-bench -j $(JOBS) --target wr wr-capacity-origin
	bench/guard.py build-bench --guard off
	bench/guard.py build-bench --guard on
	bench/guard.py build-bench --guard on --edges 3
	bench/guard.py build-bench --guard on --crowd burst
	bench/guard.py build-bench --guard on --crowd burst --cap 8

# Mixed traffic at 1,000 connections for SOAK_SECONDS (default 600); not part of make test.
soak: build
	bench/soak.py $(BUILD)

# Plants the bugs of tests/mutants/mutants.txt one at a time and reports how many the tests catch
# (not part of make test: about an hour on two cores).
mutate: build
	scripts/mutate.sh

fuzz:
	@scripts/install-deps.sh fuzz
	fuzz/run.sh

clean:
	rm -rf $(BUILD) build-bench build-fuzz build-asan
