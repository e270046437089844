#!/usr/bin/env bash
# Installs the Debian packages wr needs to build and test, skipping those already present.
# Usage: scripts/install-deps.sh [build|test|bench|fuzz|demo]
set -euo pipefail

build_packages=(
  cmake ninja-build g++ pkg-config ccache
  libcpp-httplib-dev libboost-dev libcli11-dev libsqlitecpp-dev libsqlite3-dev
  nlohmann-json3-dev libssl-dev doctest-dev libkainjow-mustache-dev
  libre2-dev libhiredis-dev zlib1g-dev libbrotli-dev node-llhttp
)
test_packages=(nodejs npm redis-server redis-sentinel chromium sqlite3 prometheus clang libclang-rt-14-dev openssl curl)
bench_packages=(nginx haproxy wrk curl redis-server redis-tools nghttp2-client)
fuzz_packages=(clang libclang-rt-14-dev)

wanted=("${build_packages[@]}")
case "${1:-build}" in
  build|demo) ;;
  test) wanted+=("${test_packages[@]}") ;;
  bench) wanted+=("${bench_packages[@]}") ;;
  fuzz) wanted+=("${fuzz_packages[@]}") ;;
  *) echo "usage: $0 [build|test|bench|fuzz|demo]" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  # node and npm may come from outside Debian (nvm, NodeSource); a working binary is enough.
  if [[ $package == nodejs || $package == npm ]] && command -v "${package/nodejs/node}" >/dev/null; then
    continue
  fi
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
