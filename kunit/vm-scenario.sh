# SPDX-License-Identifier: GPL-2.0
# Body of the generated KUnit scenario (scripts/kunit prepends the `# load:` header and
# writes build/kunit/kunit.sh). Runs inside the test VM after the harness has loaded
# ib_ipoib_cm_kunit.ko, whose init ran the selected suites. Turns KUnit's per-suite results
# (/sys/kernel/debug/kunit/<suite>/results) into one TAP line per case, "suite.case", in
# the module's order, with KUnit's failure messages as TAP comments.
. /e2e/lib.sh
d=/sys/kernel/debug/kunit
line=$(dmesg | grep 'ktest: running ' | tail -n 1)
ncases=$(echo "$line" | sed -n 's/.*ktest: running [0-9]* suite(s), \([0-9]*\) case(s).*/\1/p')
nsuites=$(echo "$line" | sed -n 's/.*ktest: running \([0-9]*\) suite(s).*/\1/p')
[ -n "$ncases" ] || bail "ib_ipoib_cm_kunit did not report what it ran (no 'ktest: running' line)"
# one "ktest: suite N NAME" line per suite, in run order; all of them must be there
suites=$(dmesg | sed -n 's/.*ktest: suite [0-9]* \([A-Za-z0-9_]*\)$/\1/p')
nseen=$(echo "$suites" | grep -c .)
[ "$nseen" = "$nsuites" ] || bail "ib_ipoib_cm_kunit announced $nsuites suite(s) but listed $nseen"
[ -d "$d" ] || bail "$d missing (CONFIG_KUNIT_DEBUGFS, debugfs mounted?)"
plan "$ncases"
for s in $suites; do
    if [ ! -r "$d/$s/results" ]; then
        not_ok "$s (no results file)"
        continue
    fi
    # "    ok N case[ # SKIP why]" / "    not ok N case" lines are the cases (6.1 KTAP has no
    # " - "; later kernels do); "    # ..." lines are the cases' diagnostics (failure
    # messages), passed on as TAP comments.
    awk '
        /^    (not )?ok [0-9]+ / {
            st = ($0 ~ /^    not ok/) ? "F" : "P"
            rest = $0; sub(/^    (not )?ok [0-9]+ (- )?/, "", rest)
            dir = ""
            if (match(rest, / # SKIP/)) { dir = substr(rest, RSTART + 7); rest = substr(rest, 1, RSTART - 1); st = "S" }
            sub(/^[[:space:]]+/, "", dir)
            print st "|" rest "|" dir
            next
        }
        /^    # / && !/^    # Subtest:/ { l = $0; sub(/^    # /, "", l); print "D|" l "|" }
    ' "$d/$s/results" > /tmp/kunit.$s
    while IFS='|' read -r st name why; do
        case $st in
            P) ok "$s.$name" ;;
            F) not_ok "$s.$name" ;;
            S) skip "$s.$name" "$why" ;;
            D) diag "$s: $name" ;;
        esac
    done < /tmp/kunit.$s
done
exit $(tap_status)
