#!/usr/bin/env bash
# The documentation runs: every ```sh block of README.md and docs/*.md is run against the wr
# just built, so a command that stops working fails `make test` rather than a reader.
#   tests/docs/commands.sh WR_BINARY SOURCE_DIR [FILE.md …]   (ctest registers it as docs-commands)
#   DOCS_VERBOSE=1 shows what every command printed.
# Each file runs in order in one shell, in a scratch directory of its own holding a `build` link
# to the build directory, with wr and wr-demo-origin on the PATH and the examples' ports (8080,
# 9090, 3000, 8081) moved to free ones. A block that cannot run offline carries an HTML comment
# just before it; CONTRIBUTING.md lists them ("Documentation that runs").
set -euo pipefail
wr=$(realpath "$1")
source_dir=$(realpath "$2")
shift 2
build_dir=$(dirname "$wr")
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")

cd "$source_dir"
if [[ $# -gt 0 ]]; then
    files=("$@")
else
    files=(README.md docs/*.md)
fi

# A port nothing listens on, below the kernel's ephemeral range (as tests/demo/demo_test.sh).
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 12000))
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
}

work_dirs=()
cleanup() {
    for work in "${work_dirs[@]}"; do
        if [[ -f $work/.docs-pids ]]; then
            while read -r pid; do kill -TERM -- "-$pid" 2>/dev/null || true; done <"$work/.docs-pids"
        fi
    done
    wait 2>/dev/null || true
    for work in "${work_dirs[@]}"; do rm -rf "$work"; done
}
trap cleanup EXIT

failures=0 total_ran=0 total_skipped=0
for file in "${files[@]}"; do
    work=$(mktemp -d)
    work_dirs+=("$work")
    mkdir "$work/.blocks"
    awk -v out="$work/.blocks" -f "$here/extract_blocks.awk" "$file"
    ls "$work/.blocks"/*.meta >/dev/null 2>&1 || continue
    ln -s "$build_dir" "$work/build"
    started=$SECONDS
    edge=$(free_port) admin=$(free_port) origin=$(free_port) preview=$(free_port)
    set +e
    (
        cd "$work"
        export PATH="$build_dir:$PATH" DOCS_EDGE_PORT=$edge DOCS_ADMIN_PORT=$admin DOCS_ORIGIN_PORT=$origin \
            DOCS_PREVIEW_PORT=$preview DOCS_SOURCE_DIR=$source_dir WR_API_URL="http://127.0.0.1:$admin" WR_ADMIN_LISTEN="127.0.0.1:$admin" \
            WR_EDGE_LISTEN="127.0.0.1:$edge"
        timeout 180 bash "$here/run_blocks.sh" "$file" "$work/.blocks"
    ) >"$work/.docs-output" 2>&1
    status=$?
    set -e
    # The processes a file left running end with it, so the next file starts clean.
    if [[ -f $work/.docs-pids ]]; then
        while read -r pid; do kill -TERM -- "-$pid" 2>/dev/null || true; done <"$work/.docs-pids"
        rm "$work/.docs-pids"
    fi
    ran=0 skipped=0
    [[ -f $work/.docs-summary ]] && source "$work/.docs-summary"
    if [[ $status -ne 0 ]]; then
        failures=$((failures + 1))
        echo "FAIL $file ($((SECONDS - started)) s):" >&2
        sed 's/^/    /' "$work/.docs-output" | tail -40 >&2
        echo "    (a block that cannot run offline needs <!-- docs-test: skip — why --> just before it; CONTRIBUTING.md)" >&2
    else
        echo "ok   $file: $ran block(s) run, $skipped skipped ($((SECONDS - started)) s)"
        grep '^skip ' "$work/.docs-output" | sed 's/^/     /' || true
        [[ -z ${DOCS_VERBOSE:-} ]] || sed 's/^/    | /' "$work/.docs-output"
        total_ran=$((total_ran + ran))
        total_skipped=$((total_skipped + skipped))
    fi
done

if [[ $failures -gt 0 ]]; then
    echo "docs-commands: $failures file(s) failed" >&2
    exit 1
fi
echo "docs-commands: ran $total_ran block(s), skipped $total_skipped, in ${#files[@]} file(s)"
