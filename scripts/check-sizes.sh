#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-sizes.sh - the size rule: files of a few hundred lines, each with
# one responsibility; no core file (the spine ipoib_*.cpp/.h at the root, everything under
# core/, kstd) over 600 lines, no shim file
# (kapi/*.c, kapi/*.h) over 450. Run by `make check`; prints every file over its limit.
set -eu
cd "$(dirname "$0")/.."
bad=0
over() {  # over LIMIT FILE...
    lim=$1; shift
    for f in "$@"; do
        [ -f "$f" ] || continue
        n=$(wc -l < "$f")
        if [ "$n" -gt "$lim" ]; then
            echo "check-sizes: $f has $n lines (limit $lim): split it by type or role" >&2
            bad=1
        fi
    done
}
# shellcheck disable=SC2046
over 600 ipoib_*.cpp ipoib_*.h $(find core -name '*.cpp' -o -name '*.h' | sort) include/kstd/*.h
over 450 kapi/*.c kapi/*.h
[ $bad = 0 ] && echo "check-sizes: every core file <= 600 lines, every shim file <= 450"
exit $bad
