#!/bin/sh
# check-kunit-suites.sh - every KUnit suite defined is registered, so none silently never runs:
# each KTEST_SUITE(name, ...) in kunit/test_*.cpp must be listed as X(name) in kunit/suites.h
# (the KUnit module and the host runner), each one in kunit/host/test_*.cpp in
# kunit/host/suites_host.h (the host runner only). A suite listed in neither table is linked
# but never called. Run by scripts/kunit before it builds and by `make check`.
#   scripts/check-kunit-suites.sh [REPO]   (default: this script's repo)
set -eu
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
bad=0
# defined DIR: the suite names KTEST_SUITE defines in DIR/test_*.cpp, one per line
defined() {
    for f in "$1"/test_*.cpp; do
        [ -f "$f" ] || continue
        sed -n 's/^[[:space:]]*KTEST_SUITE([[:space:]]*\([A-Za-z0-9_]*\)[[:space:]]*,.*/\1/p' "$f"
    done
}
# need DIR LIST: every suite defined in DIR is X(...) in LIST
need() {
    n=0
    for s in $(defined "$1"); do
        n=$((n + 1))
        grep -q "X($s)" "$2" || { echo "check-kunit-suites: $s (defined in ${1#"$repo"/}/) is not listed in ${2#"$repo"/}: it would never run" >&2; bad=1; }
    done
    [ "$n" -gt 0 ] || { echo "check-kunit-suites: no KTEST_SUITE found in ${1#"$repo"/}/test_*.cpp" >&2; bad=1; }
}
need "$repo/kunit" "$repo/kunit/suites.h"
need "$repo/kunit/host" "$repo/kunit/host/suites_host.h"
[ $bad = 0 ] && echo "check-kunit-suites: every KUnit suite is registered"
exit $bad
