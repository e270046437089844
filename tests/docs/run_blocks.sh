#!/usr/bin/env bash
# Runs the shell blocks of one Markdown file, in order, in this one shell (so a variable set in
# one block is there in the next), as tests/docs/commands.sh prepared them.
#   run_blocks.sh FILE.md BLOCKS_DIR     (in the file's scratch directory; ports in DOCS_*_PORT)
# Each block runs with `set -eo pipefail`; the first command that fails ends the run with its
# place in the Markdown file. Background processes are listed in ./.docs-pids for the caller, and
# the counts of blocks run and skipped go to ./.docs-summary.
set -uo pipefail
file=$1
blocks=$2
ran=0 skipped=0

fail() {
    echo "docs: $*" >&2
    exit 1
}

# The well-known ports of the examples, moved to free ones.
with_free_ports() {
    sed -e "s/:8080\b/:$DOCS_EDGE_PORT/g" -e "s/:9090\b/:$DOCS_ADMIN_PORT/g" \
        -e "s/:3000\b/:$DOCS_ORIGIN_PORT/g" -e "s/:8081\b/:$DOCS_PREVIEW_PORT/g"
}

# Retries a command for up to 10 s: what a reader does by looking again a moment later.
docs_wait() {
    local attempt
    for attempt in $(seq 100); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "docs: gave up waiting for: $*" >&2
    return 1
}

# Starts a script in its own process group and waits until a URL answers.
docs_background() { # name script url
    setsid bash "$2" >"./.docs-$1.log" 2>&1 &
    echo $! >>./.docs-pids
    if ! docs_wait curl -s -o /dev/null "$3"; then
        cat "./.docs-$1.log" >&2
        return 1
    fi
}

# A running wr in front of the demo origin with the zone example.com and the room shop, for the
# pages whose examples assume one (once per file).
fixture_started=
docs_fixture() {
    [[ -n $fixture_started ]] && return 0
    fixture_started=yes
    cat >./.docs-fixture.sh <<SCRIPT
wr-demo-origin --listen 127.0.0.1:$DOCS_ORIGIN_PORT &
exec wr serve --data-dir ./wr-data
SCRIPT
    docs_background fixture ./.docs-fixture.sh "http://127.0.0.1:$DOCS_ADMIN_PORT/healthz" || return 1
    wr zones create example.com --origin "http://127.0.0.1:$DOCS_ORIGIN_PORT" >/dev/null &&
        wr rooms create --zone example.com --name shop --host shop.example.com \
            --total-active-users 200 --new-users-per-minute 200 >/dev/null &&
        docs_wait curl -sf -o /dev/null -H 'Host: shop.example.com' "http://127.0.0.1:$DOCS_EDGE_PORT/"
}

for meta in $(ls "$blocks"/*.meta | sort -V); do  # 2 before 10
    number=$(basename "$meta" .meta)
    line=$(sed -n 's/^line=//p' "$meta")
    directive=$(sed -n 's/^directive=//p' "$meta")
    where="$file:$line"
    script="$blocks/$number.run.sh"
    with_free_ports <"$blocks/$number.sh" >"$script"

    expect= background=
    if [[ $directive == skip* ]]; then
        reason=$(sed -E 's/^skip[[:space:]]*[—:-]*[[:space:]]*//' <<<"$directive")
        [[ -n $reason ]] || fail "$where: a skipped block must say why (<!-- docs-test: skip — why -->)"
        echo "skip $where: $reason"
        skipped=$((skipped + 1))
        continue
    fi
    IFS=',' read -ra words <<<"$directive"
    for word in "${words[@]}"; do
        read -r keyword argument <<<"$word"
        case ${keyword:-} in
            '') ;;
            fixture) docs_fixture || fail "$where: the fixture (a wr with the room shop) did not start" ;;
            exit) expect=$argument ;;
            background) background=$(with_free_ports <<<"$argument") ;;
            setup)
                with_free_ports <"$blocks/$number.setup.sh" >"$blocks/$number.setup.run.sh"
                # shellcheck disable=SC1090
                source "$blocks/$number.setup.run.sh" || fail "$where: the setup in the comment before the block failed"
                ;;
            *) fail "$where: unknown docs-test directive '$keyword' (skip, background, fixture, exit, setup)" ;;
        esac
    done

    echo "run  $where"
    ran=$((ran + 1))
    if [[ -n $background ]]; then
        docs_background "$number" "$script" "$background" || fail "$where: started in the background, but $background never answered"
    elif [[ -n $expect ]]; then
        # shellcheck disable=SC1090
        (set -eo pipefail; source "$script")
        status=$?
        [[ $status == "$expect" ]] || fail "$where: the block should end with exit status $expect, not $status"
    else
        trap 'echo "docs: $where: this command failed (exit $?): $BASH_COMMAND" >&2' ERR
        set -eEo pipefail
        # shellcheck disable=SC1090
        source "$script"
        set +eE
        trap - ERR
    fi
done
echo "ran=$ran skipped=$skipped" >./.docs-summary
