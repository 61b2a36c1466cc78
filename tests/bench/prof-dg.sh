#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# prof-dg: a perf profile of datagram-mode iperf3 TCP, ours against a
# second build of ours (ib_ipoib_cm_b, e.g. an older commit), in one boot. Not an e2e scenario
# (it asserts nothing about the driver; docs/datagram.md "NAPI scheduling from task context"
# has what it showed). How to run it (perf is not in the e2e image):
#   1. a scratch copy of the tree (tar without .git and build/ into /tmp/X/tree), built, with
#      "/usr/bin/perf /usr/bin/perf" added to scripts/mkinitramfs's TOOLS list;
#   2. the other tree built as ib_ipoib_cm_b, as scripts/bench does for BENCH_OURS_B (Kbuild's
#      obj-m and -y lines renamed; make KDIR=/usr/src/linux-headers-$(scripts/kver) modules);
#   3. cp this file to the copy's tests/e2e/, then there:
#      scripts/vm-test --ko-path DIR_OF_ib_ipoib_cm_b.ko tests/e2e/prof-dg.sh
# Per module: iperf3 1 and 4 streams (5 s, busy ticks from /proc/stat), then 6 s of
# `perf record -a -g` during a 9 s stream, NET_RX softirq counts before/after (so NAPI polls
# per MB), ethtool -S, flat/callgraph/children reports as diag lines in build/e2e/stock/prof-dg.log.
# load: ib_core
# load: ib_cm
# load: softib hosts=2
# load: ib_ipoib_cm ports=nonexistent0
# load: ib_ipoib_cm_b ports=nonexistent0
# mem: 2048
# timeout: 1500
. /e2e/lib.sh
plan 1
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
mount -t tmpfs tmpfs /tmp 2>/dev/null
rmmod ib_ipoib_cm
rmmod ib_ipoib_cm_b
cpu_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
run() { # ko modname label
    rmmod softib || diag "rmmod softib failed: $(lsmod)"; insmod /e2e/modules/softib.ko hosts=2 || diag "insmod softib failed"
    wait_for 30 test -e /sys/class/infiniband/softib1
    insmod $1 || return 1
    wait_for 30 test -e /sys/class/net/ib1
    ns_create A B; ns_move ib0 A; ns_move ib1 B
    ns_addr A ib0 10.0.0.1/24; ns_addr B ib1 10.0.0.2/24
    wait_carrier ib0 A 60; wait_carrier ib1 B 60
    ns_exec B iperf3 -s -D >/dev/null 2>&1; sleep 1
    ns_exec A ping -c 3 10.0.0.2 >/dev/null
    diag "MTU $3 $(ip -n A link show ib0 | head -1)"
    for P in 1 4; do
      c0=$(cpu_busy)
      out=$(ns_exec A iperf3 -c 10.0.0.2 -t 5 -f m -P $P 2>&1 | grep ' receiver$' | tail -n1)
      c1=$(cpu_busy)
      diag "RES $3 P$P: $out cpu_ticks=$((c1 - c0))"
    done
    ns_exec A ip -s link show ib0 | while read -r l; do diag "LINKA $3 $l"; done
    cat /proc/interrupts | grep -v ' 0 *0 ' | while read -r l; do diag "IRQ0 $3 $l"; done
    grep -E 'NET_RX|NET_TX' /proc/softirqs | while read -r l; do diag "SIRQ0 $3 $l"; done
    ns_exec A ethtool -S ib0 2>/dev/null | while read -r l; do diag "ETH0 $3 $l"; done
    ns_exec A iperf3 -c 10.0.0.2 -t 9 -f m > /tmp/ip.out 2>&1 &
    sleep 1
    perf record -a -g -e cpu-clock -F 499 -o /tmp/p.data -- sleep 6 >/dev/null 2>&1
    wait
    diag "RES $3 profiled run: $(grep ' receiver$' /tmp/ip.out)"
    grep -E 'NET_RX|NET_TX' /proc/softirqs | while read -r l; do diag "SIRQ1 $3 $l"; done
    ns_exec A ethtool -S ib0 2>/dev/null | while read -r l; do diag "ETH1 $3 $l"; done
    ns_exec B ethtool -S ib1 2>/dev/null | while read -r l; do diag "ETHB1 $3 $l"; done
    perf report -i /tmp/p.data --stdio --no-children --sort sym --percent-limit 0.3 -g none 2>/dev/null | grep -v '^$' | grep -v '^#' | head -150 | while read -r l; do diag "FLAT $3 $l"; done
    perf report -i /tmp/p.data --stdio --no-children --sort sym --percent-limit 1.5 -g caller,0.5,callee,function,percent --max-stack 12 2>/dev/null | grep -v '^$' | grep -v '^#' | head -500 | while read -r l; do diag "PROF $3 $l"; done
    perf report -i /tmp/p.data --stdio --sort dso --percent-limit 0.5 2>/dev/null | grep '%' | head -12 | while read -r l; do diag "DSO $3 $l"; done
    perf report -i /tmp/p.data --stdio --children --sort sym --percent-limit 2 -g none 2>/dev/null | grep -v '^$' | grep -v '^#' | head -80 | while read -r l; do diag "CHILD $3 $l"; done
    killall iperf3 2>/dev/null; sleep 1
    ip -n A link set ib0 down; ip -n B link set ib1 down
    rmmod $2 || diag "rmmod $2 failed"
    ns_delete_all
    sleep 1
}
run /e2e/modules/ib_ipoib_cm.ko ib_ipoib_cm new
run /e2e/modules/ib_ipoib_cm_b.ko ib_ipoib_cm_b old
check "done" true
