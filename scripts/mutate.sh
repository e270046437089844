#!/usr/bin/env bash
# Plants small, plausible bugs one at a time in the code that decides admission, holds the shared
# state and handles origin connections, rebuilds, and runs the tests that guard each one: a
# mutant the tests catch is killed; one they miss is a rule no test guards. Not part of CI (each
# mutant is a rebuild and a test run: about an hour for the list on two cores).
# Usage: scripts/mutate.sh [name-filter]     (make mutate; MUTANTS=file to use another list)
# The list (tests/mutants/mutants.txt) has one mutant per block: `name:`, `file:`, `from:`, `to:`
# (each one line; `from` must occur exactly once in the file) and `tests:` (a doctest -tc filter).
set -euo pipefail
cd "$(dirname "$0")/.."
list=${MUTANTS:-tests/mutants/mutants.txt}
build=${MUTATE_BUILD:-build-mutate}
filter=${1:-}
[[ -f $build/build.ninja ]] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target wr_tests wr >/dev/null

if ! git diff --quiet -- server; then
  echo "mutate: server/ has uncommitted changes; commit or stash them first (each mutant is undone with git checkout)" >&2
  exit 2
fi

killed=0 survived=0 broken=0
survivors=()
run_mutant() {
  local name=$1 file=$2 from=$3 to=$4 tests=$5
  [[ -n $filter && $name != *$filter* ]] && return 0
  if ! FROM=$from TO=$to perl -0pi -e 'my $n = () = /\Q$ENV{FROM}\E/g; exit 3 if $n != 1; s/\Q$ENV{FROM}\E/$ENV{TO}/;' "$file"; then
    echo "mutate: $name: the text to change is not found exactly once in $file" >&2
    git checkout -q -- "$file"
    exit 2
  fi
  local verdict
  if ! cmake --build "$build" -j"$(nproc)" --target wr_tests wr >/dev/null 2>&1; then
    verdict="does not compile"; broken=$((broken + 1))
  elif "$build/wr_tests" -tc="$tests" >"$build/mutant-$name.log" 2>&1; then
    verdict="SURVIVED"; survived=$((survived + 1)); survivors+=("$name")
  else
    verdict="killed"; killed=$((killed + 1))
  fi
  git checkout -q -- "$file"
  printf '%-44s %s\n' "$name" "$verdict"
}

name='' file='' from='' to='' tests=''
while IFS= read -r line || [[ -n $line ]]; do
  case $line in
    name:*) name=${line#name: } ;;
    file:*) file=${line#file: } ;;
    from:*) from=${line#from: } ;;
    to:*) to=${line#to: } ;;
    tests:*) tests=${line#tests: }
             run_mutant "$name" "$file" "$from" "$to" "$tests"
             name='' file='' from='' to='' tests='' ;;
  esac
done <"$list"
cmake --build "$build" -j"$(nproc)" --target wr_tests wr >/dev/null # back to the real code

total=$((killed + survived))
echo
echo "mutants: $total run, $killed killed, $survived survived, $broken did not compile"
[[ $total -gt 0 ]] && echo "score: $((100 * killed / total)) % killed (target: at least 90 %)"
[[ ${#survivors[@]} -gt 0 ]] && echo "survivors: ${survivors[*]}"
[[ $total -eq 0 || $((100 * killed / total)) -ge 90 ]]
