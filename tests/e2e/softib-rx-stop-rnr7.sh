#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib fault knob rx_stop against a requester with rnr_retry 7 (infinite), the case a driver's
# send watchdog must handle: the verbs client softib_rctest watch=1 streams 4 KiB RC SENDs, one
# in flight at a time, between two QPs of softib0. While softib0 is rx_stop'ed no send completes,
# RNR NAKs keep being counted (the requester retries forever) and nothing fails
# (no RNR_RETRY_EXC, no error completion); after rx_start the stalled send completes and the
# stream goes on.
# load: ib_core
# load: softib hosts=1
# load: softib_rctest watch=1
# mem: 768
# timeout: 120
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 10

F=/sys/kernel/debug/softib/softib0/fault
P=/sys/module/softib_rctest/parameters
cnt() { cat /sys/class/infiniband/softib0/ports/1/hw_counters/$1; }
ok_n() { cat $P/watch_ok; }
dmesg_mark rnr7
check "the watch stream runs (> 20 sends)" wait_for 20 sh -c "test \$(cat $P/watch_ok) -gt 20"
n0=$(cnt rnr_nak); x0=$(cnt rnr_retry_exceeded)
check "rx_stop on softib0" sh -c "echo rx_stop > $F"
sleep 1
c1=$(ok_n); m1=$(cnt rnr_nak)
sleep 3
c2=$(ok_n); m2=$(cnt rnr_nak)
diag "watch_ok $c1 -> $c2 over 3 s stopped; rnr_nak $n0 -> $m1 -> $m2"
check "no send completes while stopped" test "$c2" -eq "$c1"
check "RNR NAKs counted within the first second" test "$m1" -gt "$n0"
check "and still coming 3 s later (the requester keeps retrying)" test "$m2" -gt "$m1"
check "no RNR_RETRY_EXC (rnr_retry 7)" test "$(cnt rnr_retry_exceeded)" -eq "$x0"
check "rx_start on softib0" sh -c "echo rx_start > $F"
check "the stream resumes" wait_for 10 sh -c "test \$(cat $P/watch_ok) -gt $((c2 + 20))"
check "no error completion at any time" test "$(cat $P/watch_err)" -eq 0
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib0/1)"
exit $(tap_status)
