#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-history.sh - tracked files must describe the product, not how it was made: no
# citations of work sessions, tracker items, reviews or who did what, no links to documents
# outside the repository (scripts/check-history.patterns lists the patterns).
#
#   scripts/check-history.sh            every hit, a count per file type; exit 1 on any hit
#   CHECK_HISTORY_STRICT=0 ...          the same, report only (exit 0)
#   scripts/check-history.sh --list     only the hits (file:line:text), for a scrub list
#   scripts/check-history.sh [--list] -- PATH...   only these tracked paths
#
# Not scanned (the allow-list, the only one): the pattern file itself, this script,
# benchmark data (tests/bench/baseline/), binary files. Git history is never scanned: commit
# messages are where the story belongs.
set -eu
cd "$(dirname "$0")/.."
pat=scripts/check-history.patterns
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$pat" | grep -v '^$' > "$tmp/pat"

list=0; [ "${1:-}" = --list ] && { list=1; shift; }
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || set -- .
git ls-files -z -- "$@" ':!scripts/check-history.patterns' ':!scripts/check-history.sh' \
	':!tests/bench/baseline/' ':!LICENSE' |
	xargs -0 -r grep -I -n -i -E -H -f "$tmp/pat" -- > "$tmp/hits" 2>/dev/null || true

if [ $list = 1 ]; then cat "$tmp/hits"; exit 0; fi

n=$(wc -l < "$tmp/hits")
if [ "$n" -eq 0 ]; then echo "check-history: no process references in tracked files"; exit 0; fi
cut -c1-200 "$tmp/hits"
echo "check-history: $n lines with process references, per file type:"
cut -d: -f1 "$tmp/hits" | sed -E 's@.*/@@; s@^[^.]*$@(no extension)@; s@^.*\.@.@' |
	sort | uniq -c | sort -rn | sed 's/^/  /'
echo "check-history: in $(cut -d: -f1 "$tmp/hits" | sort -u | wc -l) files"
if [ "${CHECK_HISTORY_STRICT:-1}" = 0 ]; then
	echo "check-history: report only (CHECK_HISTORY_STRICT=0)"
	exit 0
fi
echo "check-history: FAILED (state the fact or the reason instead)"
exit 1
