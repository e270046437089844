#!/usr/bin/env bash
# Cloudflare's official TypeScript SDK (npm `cloudflare`, pinned in package.json) against wr.
# Usage: tests/sdk/run.sh /path/to/wr        (ctest registers it as the test `sdk`)
set -euo pipefail

if [[ $# -lt 1 || -z "$1" ]]; then
    echo "usage: $0 /path/to/wr" >&2
    exit 2
fi
wr_bin=$(realpath "$1")
if [[ ! -x "$wr_bin" ]]; then
    echo "$0: no executable wr at $1" >&2
    exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")"

# Install the pinned SDK when node_modules is missing or older than the lock file.
if [[ ! -d node_modules || package-lock.json -nt node_modules ]]; then
    npm ci --no-audit --no-fund
    touch node_modules
fi

# The file is run by node itself (its node:test runner reports and sets the exit status): with
# `node --test`, every further argument would be taken as one more test file, so the wr path
# could not reach the test as argv[2].
exec node --test-reporter=spec sdk_test.mjs "$wr_bin"
