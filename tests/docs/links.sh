#!/usr/bin/env bash
# The repository explains itself: every relative link in its Markdown files leads to a file (and,
# with a #fragment, a heading) inside the repository, and no file cites briefing material that
# lives outside it, and the user documentation (README.md, docs/) names no issue numbers.
# Usage: tests/docs/links.sh [REPO_ROOT]     (ctest registers it as the test `docs`)
set -euo pipefail

root=$(realpath "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}")
cd "$root"

# The files of the repository: git's list when this is a checkout (tracked and new, not ignored),
# otherwise every file outside build and dependency directories.
list_files() {
    if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$root" ls-files -z --cached --others --exclude-standard | xargs -0 -n 200 ls -d 2>/dev/null
    else
        find . -type f -not -path './build*' -not -path '*/node_modules/*' -not -path './.git/*' | sed 's|^\./||'
    fi
}
mapfile -t files < <(list_files | sort -u)

# GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
anchors_of() {
    sed -n 's/^#\{1,6\}[[:space:]]\{1,\}//p' "$1" |
        sed -e 's/[[:space:]]*#*[[:space:]]*$//' -e 's/`//g' |
        tr '[:upper:]' '[:lower:]' |
        sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

failures=0
fail() {
    echo "$1" >&2
    failures=$((failures + 1))
}

for file in "${files[@]}"; do
    [[ $file == *.md ]] || continue
    dir=$(dirname "$file")
    # Links outside fenced code blocks and inline code: [text](target) and [label]: target.
    while IFS=$'\t' read -r line target; do
        target=${target%% *}          # drop a "title"
        target=${target#<}; target=${target%>}
        case $target in
            '' | http://* | https://* | mailto:*) continue ;;
        esac
        path=${target%%#*}
        fragment=
        [[ $target == *'#'* ]] && fragment=${target#*#}
        if [[ -z $path ]]; then
            resolved=$file
        else
            resolved=$(realpath -m "$dir/$path")
            if [[ $resolved != "$root" && $resolved != "$root"/* ]]; then
                fail "$file:$line: link leaves the repository: $target"
                continue
            fi
            if [[ ! -e $resolved ]]; then
                fail "$file:$line: no such file: $target"
                continue
            fi
        fi
        if [[ -n $fragment && -f $resolved && $resolved == *.md ]]; then
            if ! anchors_of "$resolved" | grep -qxF -- "$fragment"; then
                fail "$file:$line: no heading for #$fragment in $path"
            fi
        fi
    done < <(awk '
        /^[[:space:]]*(```|~~~)/ { fenced = !fenced; next }
        fenced { next }
        {
            text = $0
            gsub(/`[^`]*`/, "", text)
            if (match(text, /^[[:space:]]*\[[^]]+\]:[[:space:]]*[^[:space:]]+/)) {
                ref = substr(text, RSTART, RLENGTH); sub(/^[^:]*:[[:space:]]*/, "", ref)
                print NR "\t" ref
                next
            }
            while (match(text, /\]\([^)]*\)/)) {
                print NR "\t" substr(text, RSTART + 2, RLENGTH - 3)
                text = substr(text, RSTART + RLENGTH)
            }
        }' "$file")
done

# No citations of paths outside the repository (the patterns are written so as not to match
# themselves).
outside='\.\./shared\b|reference/[0][0-9]{2}|\bDESIGN\.md|(^|[^/a-z_])API\.md'
for file in "${files[@]}"; do
    [[ -f $file ]] || continue
    case $file in *.png | *.ico | *.woff*) continue ;; esac
    while IFS= read -r hit; do
        fail "cites a path outside the repository: $hit"
    done < <(grep -IHnE "$outside" "$file" || true)
done

# User documentation is a manual, not a work diary: it names no issue numbers.
for file in README.md docs/*.md; do
    [[ -f $file ]] || continue
    while IFS= read -r hit; do
        fail "user documentation names an issue (say what the feature does instead): $hit"
    done < <(grep -HinE 'issue #?[0-9]+' "$file" || true)
done

if [[ $failures -gt 0 ]]; then
    echo "docs: $failures problem(s)" >&2
    exit 1
fi
echo "docs: every relative link in $(printf '%s\n' "${files[@]}" | grep -c '\.md$') Markdown files resolves inside the repository"
