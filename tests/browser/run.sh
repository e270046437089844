#!/usr/bin/env bash
# Runs the browser tests: tests/browser/run.sh WR_BINARY SOURCE_DIR SCREENSHOT_DIR
set -euo pipefail
cd "$(dirname "$0")"
if [[ ! -x /usr/bin/chromium && -z ${CHROMIUM:-} ]]; then
    echo "browser tests: Debian's chromium is not installed (scripts/install-deps.sh test installs it)" >&2
    exit 1
fi
if [[ ! -d node_modules || package-lock.json -nt node_modules ]]; then
    npm ci --no-audit --no-fund >/dev/null
fi
node --test-reporter=spec pages_test.mjs "$@"
node --test-reporter=spec console_test.mjs "$@"
