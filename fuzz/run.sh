#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer and UBSan on), each from the few
# sources it needs, and runs each for a bounded time: FUZZ_SECONDS (default 60). New inputs that
# reach new code are kept in build-fuzz/corpus/<target>; fuzz/corpus/<target> holds the
# checked-in seeds. Crashes are written to build-fuzz/ as crash-* files and fail the run.
# FUZZ_OPTIMISE (default -O1) is the optimisation level: make test's few-second smoke run uses -O0,
# which halves the compile and matters little for a run that short.
# Usage: fuzz/run.sh [target ...]   (default: all of them)
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-fuzz
mkdir -p "$out"

declare -A sources=(
  [expr]="server/expr/parser.cpp server/expr/evaluate.cpp server/util/utf8.cpp"
  [cookie]="server/edge/cookie.cpp server/util/key_ring.cpp server/util/base64.cpp server/util/files.cpp server/util/log.cpp server/util/secure.cpp server/util/time_format.cpp server/util/escape.cpp server/util/utf8.cpp"
  [config_json]="server/model/json_codec.cpp server/model/json_fields.cpp server/model/validate.cpp server/model/template_syntax.cpp server/model/template_text.cpp server/model/origin_url.cpp server/model/schedule.cpp server/util/time_format.cpp server/expr/parser.cpp server/expr/evaluate.cpp server/util/utf8.cpp server/util/secure.cpp"
  [gate]="server/edge/gate.cpp server/origin/registry.cpp server/origin/failure_notes.cpp server/origin/connection_cap.cpp server/net/read_buffer.cpp server/edge/incoming_request.cpp server/net/http_message.cpp server/net/http_parser.cpp server/edge/edge_config.cpp server/edge/config_source.cpp server/edge/cookie.cpp server/util/key_ring.cpp server/edge/crawler.cpp server/edge/turnstile.cpp server/edge/client_address.cpp server/edge/request_path.cpp server/state/memory_counters.cpp server/analytics/histogram.cpp server/analytics/room_stats.cpp server/expr/evaluate.cpp server/expr/parser.cpp server/model/histogram.cpp server/model/minute_record.cpp server/model/origin_url.cpp server/model/schedule.cpp server/model/template_syntax.cpp server/model/template_text.cpp server/model/validate.cpp server/page/compiled_template.cpp server/page/render.cpp server/page/render_cache.cpp server/page/translations.cpp server/page/variables.cpp server/queue/admission.cpp server/queue/admission_forecast.cpp server/queue/join_limiter.cpp server/queue/ledger.cpp server/queue/schedule.cpp server/queue/wait_estimate.cpp server/util/base64.cpp server/util/escape.cpp server/util/files.cpp server/util/log.cpp server/util/secure.cpp server/util/time_format.cpp server/util/embedded_file.cpp build-fuzz/embedded_files.cpp server/util/utf8.cpp"
  [request_path]="server/edge/request_path.cpp server/edge/client_address.cpp server/util/escape.cpp server/expr/parser.cpp server/expr/evaluate.cpp server/util/utf8.cpp"
  [proxy_head]="server/net/http_message.cpp server/net/http_parser.cpp server/edge/cookie_caching.cpp server/edge/forward_head.cpp server/edge/request_path.cpp server/util/escape.cpp server/util/utf8.cpp"
  [origin_response]="server/origin/response_reader.cpp server/net/http_message.cpp server/net/http_parser.cpp"
  [h2_fields]="server/edge/h2_fields.cpp server/net/http_message.cpp server/net/http_parser.cpp server/edge/cookie_caching.cpp server/edge/forward_head.cpp server/edge/request_path.cpp server/util/escape.cpp server/util/utf8.cpp"
  [edge_wire]="server/fleet/report_wire.cpp server/fleet/snapshot_wire.cpp server/fleet/outbox.cpp server/model/config_document_json.cpp server/model/json_codec.cpp server/model/json_fields.cpp server/model/histogram.cpp server/model/minute_record.cpp server/util/key_ring.cpp server/util/secure.cpp server/util/files.cpp server/util/log.cpp server/util/time_format.cpp server/util/escape.cpp server/util/utf8.cpp"
)
declare -A options=(
  [expr]="-max_len=4200 -dict=fuzz/expr.dict"
  [cookie]="-max_len=512"
  [request_path]="-max_len=2048"
  [config_json]="-max_len=8192"
  [gate]="-max_len=4096"
  [proxy_head]="-max_len=20000"
  [edge_wire]="-max_len=16384"
  [origin_response]="-max_len=8192"
  [h2_fields]="-max_len=20000"
)
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(expr cookie request_path config_json gate proxy_head origin_response edge_wire h2_fields)

llhttp_include=/usr/share/include/llhttp
# Every source once, as an object of its own, compiled in parallel (and through ccache when it is
# there, so a second run compiles nothing); each target then links the objects it needs.
optimise=${FUZZ_OPTIMISE:--O1}
# Boost 1.74's Asio only detects C++20 coroutines under GCC; clang 14 has them too (with
# libstdc++'s <coroutine>), and the gate target's sources declare coroutines (the origin cap).
compile_flags=(-std=c++20 "$optimise" -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
               -fno-sanitize-recover=undefined -DBOOST_ASIO_HAS_CO_AWAIT=1 -DBOOST_ASIO_HAS_STD_COROUTINE=1 -I server -I "$llhttp_include" -DLLHTTP_STRICT_MODE=1)
compiler=clang++
command -v ccache >/dev/null && compiler="ccache clang++"
object_of() { echo "$out/obj/${1//\//_}.o"; }
declare -A wanted=()
for target in "${targets[@]}"; do
  for source in "fuzz/${target}_fuzz.cpp" ${sources[$target]}; do wanted[$source]=1; done
done
mkdir -p "$out/obj"
# llhttp's C sources (Debian's node-llhttp), compiled as C, strict, into every target that parses HTTP.
llhttp_objects=()
for source in /usr/share/llhttp/api.c /usr/share/llhttp/http.c /usr/share/llhttp/llhttp.c; do
  object="$out/obj/llhttp_$(basename "$source" .c).o"
  ${compiler/clang++/clang} "$optimise" -g -fsanitize=fuzzer-no-link,address,undefined -DLLHTTP_STRICT_MODE=1 \
      -I "$llhttp_include" -w -c "$source" -o "$object"
  llhttp_objects+=("$object")
done
# The pages and translations the Gate renders, embedded as wr embeds them.
embedded=$(cd . && ls templates/*.html templates/i18n/*.json | paste -sd ';')
cmake -DOUTPUT="$PWD/$out/embedded_files.cpp" -DROOT="$PWD" "-DFILES=$embedded" -P cmake/embed_files.cmake
for source in "${!wanted[@]}"; do echo "$source $(object_of "$source")"; done |
  xargs -P "$(nproc)" -n 2 sh -c "$compiler ${compile_flags[*]} -c \"\$0\" -o \"\$1\""
for target in "${targets[@]}"; do
  objects=()
  for source in "fuzz/${target}_fuzz.cpp" ${sources[$target]}; do objects+=("$(object_of "$source")"); done
  clang++ -fsanitize=fuzzer,address,undefined "${objects[@]}" "${llhttp_objects[@]}" -lre2 -lssl -lcrypto -lnghttp2 -o "$out/${target}_fuzz"
done
for target in "${targets[@]}"; do
  mkdir -p "$out/corpus/$target"
  dict="${options[$target]//fuzz\//..\/fuzz\/}"
  # shellcheck disable=SC2086
  (cd "$out" && "./${target}_fuzz" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 $dict -print_final_stats=1 \
     "corpus/$target" "../fuzz/corpus/$target")
done
