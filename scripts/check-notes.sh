#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-notes.sh - a FeedNotes (core/cm/ipoib_cm_notes.h) prints its notes in its
# destructor, which must run after every spinlock of ours is dropped (with
# netconsole on the device a printk re-enters xmit, which takes the table lock). So where a
# function declares a FeedNotes, no spin guard (kstd::SpinGuard, SpinBhGuard,
# SpinIrqSaveGuard, the spelled-out kstd::Guard<kstd::lock_policy::Spin...>, or an
# `auto g = x.guard()`) may be alive at that point: one declared earlier in the same block or in
# an enclosing block would still hold its lock when the notes print. A guard declared after
# the notes in the same or an inner block is destroyed first. Run by `make check`; prints
# each offending FeedNotes with the guard that is alive there.
# A guard held by a caller is not seen (the check reads one function at a time).
# Braces are counted after string and character literals and // comments are blanked; the
# core has no /* */ comments containing braces or FeedNotes.
set -eu
cd "$(dirname "$0")/.."
# the core: the spine at the root and its parts under core/
files=$(grep -rl --include='*.cpp' --include='*.h' 'FeedNotes [A-Za-z_]*(' ipoib_*.cpp ipoib_*.h core 2>/dev/null | sort || true)
[ -n "$files" ] || { echo "check-notes: no FeedNotes declared (core/cm/ipoib_cm_notes.h gone?)" >&2; exit 1; }
awk '
FNR == 1 { depth = 0; ng = 0; }
{
    line = $0
    gsub(/\\./, "", line)			# escapes, so that "\"" ends where it should
    gsub(/"[^"]*"/, "\"\"", line)		# string literals
    gsub(/'"'"'[^'"'"']*'"'"'/, "0", line)	# character literals
    sub(/\/\/.*/, "", line)			# comments
    # declarations come before this line'"'"'s braces are counted: "Guard g(lock_);" is
    # alive from here to the end of the current block
    if (match(line, /(Spin(Bh|IrqSave)?Guard|Guard<[^>]*lock_policy::Spin[A-Za-z]*>)[ \t]+[A-Za-z_][A-Za-z_0-9]*[ \t]*[({]/) ||
        match(line, /auto[ \t]+[A-Za-z_][A-Za-z_0-9]*[ \t]*=[^;]*guard\(\)/)) {
        g_depth[ng] = depth; g_where[ng] = FILENAME ":" FNR; ng++
    }
    if (match(line, /(^|[^A-Za-z_&])FeedNotes[ \t]+[A-Za-z_][A-Za-z_0-9]*[ \t]*[({]/)) {
        decls++
        if (ng > 0) {
            printf "check-notes: %s:%d: FeedNotes declared while the spin guard of %s holds its lock: declare it before the guard, so that it prints after the unlock\n", FILENAME, FNR, g_where[ng - 1] > "/dev/stderr"
            bad = 1
        }
    }
    n = length(line)
    for (i = 1; i <= n; i++) {
        c = substr(line, i, 1)
        if (c == "{") depth++
        else if (c == "}") {
            depth--
            while (ng > 0 && g_depth[ng - 1] > depth) ng--
        }
    }
}
END {
    if (bad) exit 1
    printf "check-notes: %d FeedNotes declarations, none under a spin guard\n", decls
}' $files
