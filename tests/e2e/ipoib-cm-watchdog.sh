#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode ours <-> ours, the send watchdog (docs/connected.md §3: 10 s without a send
# completion while sends are outstanding): the receiver stops receiving, softib's
# `rnr QPN forever` on B's end of the connection answers every SEND with an RNR NAK. Our
# rnr_retry is 7 (infinite), so A's sends neither complete nor fail: only the watchdog can
# notice. A's connection is torn down by it (cm_watchdog_teardowns +1, one log line), A falls
# back to UD for its back-off, no RNR retry exceeded; once the fault is lifted traffic
# recovers over a new connection. softib srq=1 (the default).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 240
# kernels: stock debug
# (debug kernel: 240 s, PASS; not in its make test tier, ipoib-cm-crossing is, at 162 s)
. /e2e/lib.sh
plan 20

F1=/sys/kernel/debug/softib/softib1/fault
dmesg_mark watchdog
cm_ours_pair 10.0.8
check "warm-up ping A->B (path, connection)" wait_for 30 ns_reach A 10.0.8.2 1
check "A: one active connection, established" wait_for 10 cm_has icm0 1 '^dir=active .* state=established '
cm_show icm0 icm1
qa=$(cm_field icm0 . qpn); qb=$(cm_field icm1 . qpn)
check "rnr $qb forever on softib1 (B's end)" sh -c "echo 'rnr $qb forever' > $F1"
check_output "... listed" "^rnr $(printf '0x%x' $qb) forever\$" cat $F1
snap w ib:softib0 A:icm0
t0=$(cut -d. -f1 /proc/uptime)
# A keeps sending while B's QP refuses: the pings queue up behind the stuck one
ns_exec A /usr/bin/ping -c 60 -i 0.5 -W 1 10.0.8.2 > /tmp/stalled.out 2>&1 &
pp=$!
check "A: the watchdog tears the connection down (within 30 s)" wait_for 30 delta_ge w A:icm0 cm_watchdog_teardowns 1
t1=$(cut -d. -f1 /proc/uptime)
diag "watchdog after about $((t1 - t0)) s"
check "... not before 10 s of stall (>= 9 s after the fault)" test $((t1 - t0)) -ge 9
check_delta "softib0 kept getting RNR NAKs meanwhile" w ib:softib0 rnr_nak -ge 10
check_delta "... and no send failed with RNR retry exceeded (rnr_retry 7)" w ib:softib0 rnr_retry_exceeded -eq 0
check "logged: no send completion for 10000 ms" wait_dmesg 5 "QPN $qa: no send completion for 10000 ms"
check_delta "A fell back to UD" w A:icm0 cm_fall_backs -ge 1
# (the fault belongs to B's old QP, which the DREQ of the teardown destroyed: clear lifts
# whatever is left)
check "lift the fault (clear)" sh -c "echo clear > $F1 && ! grep -q '^rnr ' $F1"
kill $pp 2>/dev/null; wait $pp 2>/dev/null
check "traffic recovers: ping A->B" wait_for 60 ns_reach A 10.0.8.2 1
check "A: an established connection again, on a new QP (not $qa)" wait_for 30 sh -c "[ -n '$qa' ] && grep ' state=established ' $(cm_file icm0 connections) | grep -vq ' qpn=$qa '"
check "ping -s 60000 both ways" sh -c '/sbin/ip netns exec A /usr/bin/ping -c 3 -W 2 -s 60000 10.0.8.2 && /sbin/ip netns exec B /usr/bin/ping -c 3 -W 2 -s 60000 10.0.8.1'
nl() { dmesg_since_mark | grep -c 'no send completion for'; }
check "the watchdog logged exactly once ($(nl))" test "$(nl)" -eq 1
cm_show icm0 icm1; cm_ctrs A icm0
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
