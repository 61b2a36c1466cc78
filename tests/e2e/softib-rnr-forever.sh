#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib fault knob `rnr QPN forever` (the receiver answers RNR NAK to every SEND on that QP
# until `rnr QPN 0` or `clear`), the dead receiver a send watchdog must detect:
# 1. against rnr_retry 7 (softib_rctest watch=1, a 4 KiB SEND stream on a QP pair of softib0):
#    the stream stalls, RNR NAKs keep coming for seconds (far beyond any count given so far),
#    nothing fails, the fault stays listed as `forever`; after `rnr QPN 0` the stream resumes.
#    Control: `rnr QPN 5` ends by itself (the stream resumes without a clear).
# 2. against the in-tree ib_ipoib in connected mode (it asks rnr_retry 0): every passive RC QP
#    of softib1 set to `forever`, a 60000-byte ping from softib0's side fails its connection
#    with RNR_RETRY_EXC (counted on softib0, NAKs on both), ipoib reconnects with a new QP the
#    knob does not cover, and pings recover; malformed forms refused.
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100
# load: ib_ipoib
# load: softib_rctest watch=1
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 23

F0=/sys/kernel/debug/softib/softib0/fault
F1=/sys/kernel/debug/softib/softib1/fault
P=/sys/module/softib_rctest/parameters
cnt() { hwc "$1" "$2"; }
ok_n() { cat $P/watch_ok; }
# the RC QPNs of a device, optionally only those a given kernel module created
rc_qpns() { rdma resource show qp link "$1/1" | grep 'type RC' | grep -- "${2:-.}" |
    sed -n 's/.*lqpn \([0-9]*\).*/\1/p'; }
fault_all() { # FILE DEV MODULE ARG: `rnr QPN ARG` on each RC QP
    _n=0
    for q in $(rc_qpns "$2" "$3"); do echo "rnr $q $4" > "$1" && _n=$((_n + 1)); done
    [ $_n -gt 0 ]
}
dmesg_mark forever

# ---- 1. rnr_retry 7: softib_rctest's stream on softib0
check "the watch stream runs (> 20 sends)" wait_for 20 sh -c "test \$(cat $P/watch_ok) -gt 20"
check_output "softib_rctest's two RC QPs" '^2$' sh -c "rdma resource show qp link softib0/1 | grep 'type RC' | grep -c rctest"
q1=$(rc_qpns softib0 rctest | head -n1)
check_fail "'rnr $q1 sometimes' refused" 'Invalid argument' sh -c "echo 'rnr $q1 sometimes' > $F0"
check_fail "'rnr $q1 forever 1' refused" 'Invalid argument' sh -c "echo 'rnr $q1 forever 1' > $F0"
check_fail "'rnr 0xfffff0 forever' (no such QP) refused" 'Invalid argument' sh -c "echo 'rnr 0xfffff0 forever' > $F0"
n0=$(cnt softib0 rnr_nak); x0=$(cnt softib0 rnr_retry_exceeded)
check "rnr QPN forever on both rctest QPs" fault_all $F0 softib0 rctest forever
sleep 1
c1=$(ok_n); m1=$(cnt softib0 rnr_nak)
sleep 4
c2=$(ok_n); m2=$(cnt softib0 rnr_nak)
diag "watch_ok $c1 -> $c2 over 4 s; rnr_nak $n0 -> $m1 -> $m2"
check "no send completes while the receiver NAKs forever" test "$c2" -eq "$c1"
check "RNR NAKs in the first second" test "$m1" -gt "$n0"
check "and still coming 4 s later, more than 50 in all" test "$m2" -gt "$m1" -a $((m2 - n0)) -gt 50
check "no RNR_RETRY_EXC (rnr_retry 7)" test "$(cnt softib0 rnr_retry_exceeded)" -eq "$x0"
check_output "the fault is still listed as forever" "^rnr 0x[0-9a-f]+ forever$" cat $F0
check "rnr QPN 0 clears it" fault_all $F0 softib0 rctest 0
check "the stream resumes" wait_for 10 sh -c "test \$(cat $P/watch_ok) -gt $((c2 + 20))"
check_rc "nothing listed after the clear" 1 grep -q rnr $F0
# control: a count ends by itself
c3=$(ok_n)
check "rnr QPN 5 (a count) on both rctest QPs" fault_all $F0 softib0 rctest 5
check "... the stream resumes without a clear" wait_for 10 sh -c "test \$(cat $P/watch_ok) -gt $((c3 + 20))"
check "no error completion at any time" test "$(cat $P/watch_err)" -eq 0

# ---- 2. in-tree ipoib connected mode (rnr_retry 0) against a receiver that NAKs forever
check "ib0 connected in A, ib1 datagram in B, carriers" cm_oneway 10.0.5
check "connected ping -s 60000 A -> B" big_ping_recovers 10.0.5.2
r0=$(cnt softib0 rnr_retry_exceeded); k0=$(cnt softib0 rnr_nak)
check "rnr QPN forever on softib1's ipoib RC QPs (passive: B stays in datagram mode)" fault_all $F1 softib1 ipoib forever
/sbin/ip netns exec A /usr/bin/ping -c 2 -W 2 -s 60000 10.0.5.2 >/dev/null
check "RNR NAK and RNR_RETRY_EXC on softib0 (ipoib asks rnr_retry 0)" \
    test "$(cnt softib0 rnr_nak)" -gt "$k0" -a "$(cnt softib0 rnr_retry_exceeded)" -gt "$r0"
check "traffic recovers on a new connection" big_ping_recovers 10.0.5.2
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib0/1)"
ns_delete_all
exit $(tap_status)
