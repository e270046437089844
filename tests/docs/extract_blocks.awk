# Splits one Markdown file into the shell blocks tests/docs/commands.sh runs.
#   awk -v out=DIR -f extract_blocks.awk FILE.md
# For the Nth ```sh (or bash, shell) block it writes DIR/N.sh (the commands, with the list
# indentation removed) and DIR/N.meta: "line=L" (the fence's line), and the directive of an HTML
# comment just before the block, "<!-- docs-test: … -->", as "directive=…" (one line; a
# "setup" directive's commands go to DIR/N.setup.sh). Blank lines may separate the comment from
# the fence; any other text in between drops it.
function flush_directive(text,    setup_at) {
    sub(/^[[:space:]]*<!--[[:space:]]*docs-test:[[:space:]]*/, "", text)
    sub(/[[:space:]]*-->[[:space:]]*$/, "", text)
    pending = text
}
BEGIN { count = 0; fenced = 0; pending = ""; collecting = 0 }
collecting {
    comment = comment "\n" $0
    if ($0 ~ /-->/) { collecting = 0; flush_directive(comment) }
    next
}
!fenced && /^[[:space:]]*<!--[[:space:]]*docs-test:/ {
    comment = $0
    if ($0 ~ /-->/) flush_directive(comment)
    else collecting = 1
    next
}
!fenced && /^[[:space:]]*```/ {
    match($0, /^[[:space:]]*/)
    indent = RLENGTH
    info = substr($0, indent + 4)
    gsub(/[[:space:]]/, "", info)
    fenced = 1
    shell = (info == "sh" || info == "bash" || info == "shell")
    if (shell) {
        count++
        body = out "/" count ".sh"
        printf "" > body
        meta = out "/" count ".meta"
        printf "line=%d\n", NR > meta
        directive = pending
        if (directive ~ /^setup/) {
            script = directive
            sub(/^setup[[:space:]]*/, "", script)
            print script > (out "/" count ".setup.sh")
            close(out "/" count ".setup.sh")
            directive = "setup"
        }
        gsub(/\n/, " ", directive)
        printf "directive=%s\n", directive > meta
        close(meta)
    }
    pending = ""
    next
}
fenced && /^[[:space:]]*```[[:space:]]*$/ {
    fenced = 0
    if (shell) close(body)
    next
}
fenced {
    if (shell) {
        line = $0
        if (match(line, /^[[:space:]]+/)) line = substr(line, (RLENGTH < indent ? RLENGTH : indent) + 1)
        print line > body
    }
    next
}
/^[[:space:]]*$/ { next }
{ pending = "" }
