#!/usr/bin/env bash
# docs/configuration.md has one table of every `wr serve` option; it must say what the binary
# says: the same flags, each with the environment variable `wr serve --help` names, its config
# key (the flag's own name), and the default the help shows.
#   tests/docs/serve_flags.sh WR_BINARY SOURCE_DIR      (run by the ctest entry `docs`)
set -euo pipefail
wr=$(realpath "$1")
doc=$(realpath "$2")/docs/configuration.md

# "flag<TAB>env<TAB>default" for each option of a help text.
options_of() {
    awk '
        /^Examples?:/ { exit }                # the footer: examples, not options
        /^  -/ {
            spec = $0
            sub(/^ +/, "", spec)
            sub(/   .*/, "", spec)               # the description, when it is on the same line
            n = split(spec, words, " ")
            flag = words[1]
            sub(/^-[a-z],/, "", flag)
            if (flag == "--help" || flag == "--version") next
            env = ""
            if (match(spec, /\(Env:[A-Z0-9_]+\)/)) env = substr(spec, RSTART + 5, RLENGTH - 6)
            sub(/ *\(Env:[A-Z0-9_]+\)/, "", spec)
            default_value = ""
            if (match(spec, /=[^ =]+$/)) default_value = substr(spec, RSTART + 1)
            printf "%s\t%s\t%s\n", flag, env, default_value
        }'
}

# "flag<TAB>env cell<TAB>config cell<TAB>default cell" for each row of the table under "## wr serve".
table_rows() {
    awk -F'|' '
        /^## / { inside = ($0 == "## wr serve"); next }
        inside && /^\| `-/ {
            flag = $2
            match(flag, /`-[^` ]+/)
            flag = substr(flag, RSTART + 1, RLENGTH - 1)
            printf "%s\t%s\t%s\t%s\n", flag, $3, $4, $5
        }' "$doc"
}

failures=0
fail() {
    echo "docs/configuration.md: $*" >&2
    failures=$((failures + 1))
}

declare -A help_env help_default table_env table_config table_default table_seen
while IFS=$'\t' read -r flag env default_value; do
    help_env[$flag]=$env
    help_default[$flag]=$default_value
done < <("$wr" serve --help | options_of)
declare -A global_flags
while IFS=$'\t' read -r flag env default_value; do global_flags[$flag]=$env; done < <("$wr" --help | options_of)

while IFS=$'\t' read -r flag env config default_cell; do
    [[ -n ${table_seen[$flag]:-} ]] && fail "$flag has two rows"
    table_seen[$flag]=yes
    table_env[$flag]=$env
    table_config[$flag]=$config
    table_default[$flag]=$default_cell
done < <(table_rows)
[[ ${#table_seen[@]} -gt 0 ]] || fail "no table of flags under '## wr serve'"

for flag in "${!help_env[@]}"; do
    [[ -n ${table_seen[$flag]:-} ]] || fail "$flag (wr serve --help) has no row in the table under '## wr serve'"
done
for flag in "${!table_seen[@]}"; do
    name=${flag#--}
    if [[ -n ${help_env[$flag]+set} ]]; then
        expected_env=${help_env[$flag]}
        [[ ${table_config[$flag]} == *"\`$name\` in \`[serve]\`"* ]] ||
            fail "$flag: the config key should read \`$name\` in \`[serve]\`, not:${table_config[$flag]}"
        if [[ -n ${help_default[$flag]} && ${table_default[$flag]} != *"\`${help_default[$flag]}\`"* ]]; then
            fail "$flag: wr serve --help says the default is ${help_default[$flag]}; the table says:${table_default[$flag]}"
        fi
    elif [[ -n ${global_flags[$flag]+set} ]]; then
        expected_env=${global_flags[$flag]}
        [[ $flag == --config || ${table_config[$flag]} == *"\`$name\`"* ]] || fail "$flag: the config key should be \`$name\`"
    else
        fail "$flag is in the table but wr serve takes no such option"
        continue
    fi
    if [[ -n $expected_env ]]; then
        [[ ${table_env[$flag]} == *"\`$expected_env\`"* ]] || fail "$flag: its environment variable is $expected_env; the table says:${table_env[$flag]}"
    else
        [[ ${table_env[$flag]} =~ ^[[:space:]]*$ ]] || fail "$flag: takes no environment variable; the table says:${table_env[$flag]}"
    fi
done

if [[ $failures -gt 0 ]]; then
    echo "serve flags: $failures problem(s); the table is under '## wr serve' in docs/configuration.md" >&2
    exit 1
fi
echo "serve flags: the ${#table_seen[@]} rows of docs/configuration.md match wr serve --help"
