# Thin wrapper: installs what is missing, configures, builds, and runs.
#   make demo   build and start wr in front of a demo origin, with a demo room
#   make test   build and run every test
#   make bench  build with optimisations and compare against nginx (not part of make test)
#   make fuzz   fuzz the bypass-rule parser with libFuzzer for FUZZ_SECONDS (default 60)
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all deps test-deps build test demo bench fuzz clean

all: build

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: test-deps build
	ctest --test-dir $(BUILD) --output-on-failure

demo: build
	scripts/demo.sh $(BUILD)/wr

bench:
	@scripts/install-deps.sh bench
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build build-bench -j $(JOBS) --target wr wr-demo-origin wr_bench_decision wr_bench_visitors
	bench/run.sh build-bench

fuzz:
	@scripts/install-deps.sh fuzz
	fuzz/run.sh

clean:
	rm -rf $(BUILD) build-bench build-fuzz
