#!/usr/bin/env bash
# Builds the bypass-rule parser's libFuzzer target with clang (AddressSanitizer and UBSan on)
# and runs it for a bounded time: FUZZ_SECONDS (default 60). New inputs that reach new code are
# kept in build-fuzz/corpus; fuzz/corpus/expr holds the checked-in seeds. Crashes are written to
# build-fuzz/ as crash-* files and fail the run.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-fuzz
mkdir -p "$out/corpus"
clang++ -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I server fuzz/expr_fuzz.cpp server/expr/parser.cpp server/expr/evaluate.cpp -lre2 -o "$out/expr_fuzz"
cd "$out"
./expr_fuzz -max_total_time="${FUZZ_SECONDS:-60}" -max_len=4200 -timeout=10 -dict=../fuzz/expr.dict \
  -print_final_stats=1 corpus ../fuzz/corpus/expr
