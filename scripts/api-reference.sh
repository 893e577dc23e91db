#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# api-reference.sh - the API reference of gpuprim's public headers, and the
# checks that keep them documented. POSIX sh and awk only (no Python, no
# Doxygen needed).
#
#   api-reference.sh [-o FILE] [HEADER...]
#       Write the Markdown reference (stdout, or FILE): one section per
#       header, its introduction, then each public declaration with the
#       comment that documents it, in header order; an index of every
#       public name at the end.
#   api-reference.sh --check [--known-gaps "NAME..."] [HEADER...]
#       Fail, naming each one, when a public gp_ / GP_ function, type, enum
#       constant or macro has no documenting comment (the rule below).
#       Names listed in --known-gaps are reported but do not fail; a listed
#       name that is documented (or gone) fails, so the list cannot go stale.
#   api-reference.sh --check-spdx [ROOT]
#       Fail, naming each one, when a source file (*.c *.h *.cu *.cuh *.cpp
#       *.sh, CMakeLists.txt) under lib include renderer tests bench examples
#       demos scripts has no "SPDX-License-Identifier: BSD-3-Clause" in its
#       first 3 lines.
#   api-reference.sh --doxygen-filter FILE
#       Print FILE with its comments marked as Doxygen comments (the
#       INPUT_FILTER of docs/Doxyfile).
#
# HEADER... defaults to include/gpuprim/*.h of the tree holding this script.
#
# The documentation rule, which is the headers' style: a block comment
# documents the declarations that follow it directly, up to the next blank
# line or comment (so one comment may document a group, as gp_malloc ..
# gp_copy share one). A comment that is only a section title ("---- scan
# ----") documents nothing. An enum constant is documented by a comment on
# its own line, or by its enum's comment naming it.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)

# The header parser, shared by the reference and the check. It reads every
# header and, at the end, prints either the Markdown reference (mode=markdown)
# or one line "FILE:LINE: KIND NAME" per undocumented public name
# (mode=check).
# shellcheck disable=SC2016 # an awk program, single-quoted on purpose
PARSER='
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function basename(p) { sub(/.*\//, "", p); return p }
# The text of one comment line, delimiters and the leading " * " removed.
function uncomment(line, first) {
    if (first) sub(/^[ \t]*\/\*+/, "", line)
    sub(/[ \t]*\*+\/.*$/, "", line)
    if (!first && line ~ /^[ \t]*\*/) { sub(/^[ \t]*\*/, "", line); sub(/^ /, "", line) }
    else if (first) sub(/^ /, "", line)
    else sub(/^[ \t]+/, "", line)
    sub(/[ \t]+$/, "", line)
    return line
}
# Whether `name` occurs in `text` as a whole word.
function has_word(text, name,   p, rest, before, after) {
    rest = text
    while ((p = index(rest, name)) > 0) {
        before = p > 1 ? substr(rest, p - 1, 1) : " "
        after = substr(rest, p + length(name), 1)
        if (before !~ /[A-Za-z0-9_]/ && after !~ /[A-Za-z0-9_]/) return 1
        rest = substr(rest, p + length(name))
    }
    return 0
}
# The anchor GitHub gives a heading.
function anchor(h) {
    h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h); return h
}
function add_item(kind, a, b, c) {
    nitems++; ikind[nitems] = kind; ia[nitems] = a; ib[nitems] = b; ic[nitems] = c
}
function start_file() {
    file = FILENAME
    if (root != "" && index(file, root) == 1) file = substr(file, length(root) + 1)
    hdr = basename(file); nheaders++; header[nheaders] = hdr
    add_item("header", hdr, "", "")
    in_comment = 0; prev = "blank"; seen_code = 0; group_open = 0; in_enum = 0; in_struct = 0
}
# A public name met at line `ln`: documented or not.
function symbol(name, kind, documented, ln) {
    if (name in symkind) return
    symkind[name] = kind; symfile[name] = file; symline[name] = ln; symdoc[name] = documented
    nsyms++; syms[nsyms] = name
    group_nsyms++
    if (kind != "enum constant") group_names = group_names (group_names == "" ? "" : ", ") "`" name "`"
    group_members[group_nsyms] = name
}
function open_group(doc) {
    close_group()
    group_open = 1; group_doc = doc; group_code = ""; group_names = ""; group_nsyms = 0
}
function close_group(   i, heading) {
    if (!group_open) return
    group_open = 0
    if (group_nsyms == 0) return
    heading = group_names
    if (heading == "") heading = "`" group_members[1] "`"
    add_item("entry", heading, group_code, group_doc)
    for (i = 1; i <= group_nsyms; i++) symanchor[group_members[i]] = anchor(heading)
}
# A comment that started at the beginning of a line has ended: it documents
# what follows, unless it is the introduction of the file or a bare title.
function end_doc_comment(   n, lines, i, t, title, text) {
    close_group()
    n = split(ctext, lines, "\n"); title = ""; text = ""
    for (i = 1; i <= n; i++) {
        t = lines[i]
        if (title == "" && text == "" && t ~ /^-+ .*[^- ] *-*$/ && t ~ /^---/) {
            title = t; sub(/^-+ */, "", title); sub(/ *-*$/, "", title); continue
        }
        if (text == "" && t == "") continue
        text = text (text == "" ? "" : "\n") t
    }
    sub(/\n+$/, "", text)
    if (text ~ /^SPDX-License-Identifier: [^\n]*$/) return # the licence line, not documentation
    if (!seen_code && !have_intro[hdr]) { have_intro[hdr] = 1; add_item("intro", text, "", ""); prev = "blank"; return }
    if (title != "") add_item("section", title, "", "")
    if (prev == "doc" && pending != "") add_item("note", pending, "", "")
    pending = text
    prev = text == "" ? "blank" : "doc"
}
FNR == 1 { start_file() }
{
    line = $0
    if (in_comment) {
        if (comment_doc) ctext = ctext "\n" uncomment(line, 0)
        else group_code = group_code "\n" line
        if (index(line, "*/")) { in_comment = 0; if (comment_doc) end_doc_comment() }
        next
    }
    t = trim(line)
    if (t == "") {
        if (prev == "doc" && pending != "") add_item("note", pending, "", "")
        close_group(); prev = "blank"; pending = ""; next
    }
    if (substr(t, 1, 2) == "/*") {
        comment_doc = 1; ctext = uncomment(t, 1)
        if (index(substr(t, 3), "*/")) end_doc_comment(); else in_comment = 1
        next
    }
    # A line of code.
    if (prev == "doc") open_group(pending)
    else if (prev != "code") open_group("")
    pending = ""; prev = "code"; seen_code = 1
    group_code = group_code (group_code == "" ? "" : "\n") line
    code = line; trailing = 0
    p = index(code, "/*")
    if (p > 0) {
        trailing = 1; code = substr(code, 1, p - 1)
        if (!index(substr(line, p + 2), "*/")) { in_comment = 1; comment_doc = 0 }
    }
    documented = group_doc != ""
    if (in_enum) {
        if (code ~ /^[ \t]*[}]/) { in_enum = 0 }
        else if (match(code, /^[ \t]*GP_[A-Za-z0-9_]+/)) {
            name = trim(substr(code, RSTART, RLENGTH))
            symbol(name, "enum constant", trailing || has_word(enum_doc, name), FNR)
            next
        }
    }
    if (in_struct) {
        if (code ~ /^[ \t]*[}]/) in_struct = 0
        next
    }
    if (match(code, /^[ \t]*#[ \t]*define[ \t]+GP_[A-Za-z0-9_]+/)) {
        name = substr(code, RSTART, RLENGTH); sub(/.*define[ \t]+/, "", name)
        symbol(name, "macro", documented, FNR)
    } else if (match(code, /^[ \t]*typedef[ \t]+(struct|enum)[ \t]+gp_[a-z0-9_]+/)) {
        name = substr(code, RSTART, RLENGTH); sub(/.*[ \t]/, "", name)
        symbol(name, "type", documented, FNR)
        if (code ~ /[{]/ && code !~ /[}]/) {
            if (code ~ /typedef[ \t]+enum/) { in_enum = 1; enum_doc = group_doc } else in_struct = 1
        }
    } else if (match(code, /\(\*[ \t]*gp_[a-z0-9_]+[ \t]*\)/) && code ~ /^[ \t]*typedef/) {
        name = substr(code, RSTART + 2, RLENGTH - 3); name = trim(name)
        symbol(name, "type", documented, FNR)
    } else if (code ~ /^[ \t]*GP_API[ \t]/ && match(code, /gp_[a-z0-9_]+[ \t]*\(/)) {
        name = substr(code, RSTART, RLENGTH - 1); name = trim(name)
        symbol(name, "function", documented, FNR)
    }
}
END {
    if (nitems == 0) exit 0
    close_group()
    if (mode == "check") {
        for (i = 1; i <= nsyms; i++) {
            s = syms[i]
            if (!symdoc[s]) printf "%s:%d: %s %s has no documenting comment\n", symfile[s], symline[s], symkind[s], s
        }
        exit 0
    }
    print "# gpuprim API reference"
    print ""
    print "Generated from the public headers (`include/gpuprim/`) by `scripts/api-reference.sh`;"
    print "the headers are the source. Each declaration is shown with the comment that documents it,"
    print "in header order; the [index](#index) lists every public name."
    print ""
    for (i = 1; i <= nheaders; i++) printf "- [%s](#%s)\n", header[i], anchor(header[i])
    for (i = 1; i <= nitems; i++) {
        k = ikind[i]
        if (k == "header") { print ""; print "## " ia[i] }
        else if (k == "section") { print ""; print "### " ia[i] }
        else if (k == "intro" || k == "note") { print ""; print "```text"; print ia[i]; print "```" }
        else if (k == "entry") {
            print ""; print "#### " ia[i]; print ""; print "```c"; print ib[i]; print "```"
            if (ic[i] != "") { print ""; print "```text"; print ic[i]; print "```" }
        }
    }
    # Index, sorted by name (insertion sort: a few hundred names).
    for (i = 2; i <= nsyms; i++) {
        v = syms[i]
        for (j = i - 1; j >= 1 && syms[j] > v; j--) syms[j + 1] = syms[j]
        syms[j + 1] = v
    }
    print ""; print "## Index"; print ""
    print "| name | kind | header |"; print "|---|---|---|"
    for (i = 1; i <= nsyms; i++) {
        s = syms[i]
        printf "| [`%s`](#%s) | %s | %s |\n", s, symanchor[s], symkind[s], basename(symfile[s])
    }
}
'

# Doxygen reads only /** comments: mark the headers' plain ones. A comment
# opening a line documents what follows (a section title becomes its brief
# line; a title alone stays a plain comment), one after code documents that
# line (/**<), and the file's first comment is its @file description.
# Backslashes in comments are text, not Doxygen commands.
# shellcheck disable=SC2016 # an awk program, single-quoted on purpose
DOXYGEN_FILTER='
function esc(s,   out, p) {
    out = ""
    while ((p = index(s, "\\")) > 0) { out = out substr(s, 1, p) "\\"; s = substr(s, p + 1) }
    return out s
}
BEGIN { first = 1 }
/^\/\* SPDX-License-Identifier: [^*]*\*\/$/ { print; next }
{
    line = $0
    if (in_comment) {
        print esc(line)
        if (index(line, "*/")) in_comment = 0
        next
    }
    if (match(line, /^[ \t]*\/\*/)) {
        lead = substr(line, 1, RSTART + RLENGTH - 3); rest = substr(line, RSTART + RLENGTH)
        if (rest ~ /^ *---.*\*\/[ \t]*$/) { print line; next }
        if (rest ~ /^ *---/) {
            t = rest; sub(/^ *-+ */, "", t); sub(/ *-*[ \t]*$/, "", t)
            rest = " " toupper(substr(t, 1, 1)) substr(t, 2) "."
        }
        print lead (first ? "/** @file" : "/**") esc(rest)
        if (!index(rest, "*/")) in_comment = 1
        first = 0
        next
    }
    p = index(line, "/*")
    if (p > 0) {
        rest = substr(line, p + 2)
        line = substr(line, 1, p - 1) "/**<" esc(rest)
        if (!index(rest, "*/")) in_comment = 1
    }
    if (line !~ /^[ \t]*$/) first = 0
    print line
}
'

usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

mode=markdown
out=
known_gaps=
case "${1:-}" in
--check) mode=check; shift
    if [ "${1:-}" = --known-gaps ]; then [ $# -ge 2 ] || usage; known_gaps=$2; shift 2; fi ;;
--check-spdx) mode=spdx; shift ;;
--doxygen-filter) [ $# -eq 2 ] || usage; exec awk "$DOXYGEN_FILTER" "$2" ;;
-o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
-h|--help) usage ;;
-*) usage ;;
esac

if [ "$mode" = spdx ]; then
    top=${1:-$ROOT}
    dirs=
    for d in lib include renderer tests bench examples demos scripts; do
        [ -d "$top/$d" ] && dirs="$dirs $top/$d"
    done
    # shellcheck disable=SC2086 # the folders hold no blanks: they are ours
    missing=$(find $dirs -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \
                  -o -name '*.cpp' -o -name '*.sh' -o -name CMakeLists.txt \) | LC_ALL=C sort |
        while IFS= read -r f; do
            head -n 3 "$f" | grep -q 'SPDX-License-Identifier: BSD-3-Clause' ||
                echo "${f#"$top"/}: no 'SPDX-License-Identifier: BSD-3-Clause' in its first 3 lines"
        done)
    if [ -n "$missing" ]; then
        printf '%s\n' "$missing"
        echo "api-reference.sh --check-spdx: $(printf '%s\n' "$missing" | wc -l) file(s) without the licence line"
        exit 1
    fi
    echo "api-reference.sh --check-spdx: every source file names its licence"
    exit 0
fi

if [ $# -eq 0 ]; then
    # gpuprim.h first: the others build on it.
    set -- "$ROOT"/include/gpuprim/gpuprim.h
    for h in "$ROOT"/include/gpuprim/*.h; do [ "$h" = "$ROOT"/include/gpuprim/gpuprim.h ] || set -- "$@" "$h"; done
fi
for h in "$@"; do [ -r "$h" ] || { echo "api-reference.sh: cannot read $h" >&2; exit 2; }; done

if [ "$mode" = markdown ]; then
    if [ -n "$out" ]; then
        tmp="$out.tmp.$$"
        if LC_ALL=C awk -v mode=markdown -v root="$ROOT/" "$PARSER" "$@" >"$tmp"; then mv "$tmp" "$out"; else
            rm -f "$tmp"; exit 1
        fi
    else
        LC_ALL=C awk -v mode=markdown -v root="$ROOT/" "$PARSER" "$@"
    fi
    exit 0
fi

# --check
report=$(LC_ALL=C awk -v mode=check -v root="$ROOT/" "$PARSER" "$@")
failed=0
gaps_left=
for name in $known_gaps; do
    if printf '%s\n' "$report" | grep -q " $name has no documenting comment\$"; then
        gaps_left="$gaps_left $name"
    else
        echo "$name: listed as a known gap but documented (or gone): take it off the list"
        failed=1
    fi
done
if [ -n "$report" ]; then
    printf '%s\n' "$report" | while IFS= read -r l; do
        name=${l% has no documenting comment}; name=${name##* }
        case " $known_gaps " in
        *" $name "*) echo "$l (known gap)" ;;
        *) echo "$l" ;;
        esac
    done
    for name in $(printf '%s\n' "$report" | sed 's/ has no documenting comment$//; s/.* //'); do
        case " $known_gaps " in *" $name "*) ;; *) failed=1 ;; esac
    done
fi
if [ "$failed" -ne 0 ]; then
    echo "api-reference.sh --check: FAILED (see above): document each public name with a comment right before it"
    exit 1
fi
echo "api-reference.sh --check: every public name in $# header(s) is documented${gaps_left:+, except the known gaps:$gaps_left}"
