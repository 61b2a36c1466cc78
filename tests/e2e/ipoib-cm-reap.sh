#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, stale reaping (docs/design.md §4 item 9, docs/connected.md §2): ours
# (icm0, A) with cm_idle_timeout=3 against the in-tree ib_ipoib (ib1, B; its own reaping
# takes minutes). One exchange of 60000-byte pings leaves ours with an active connection (our
# REQ) and a passive one (the in-tree side never sends over an accepted connection, so its
# replies open a connection of their own). Once traffic stops, both are reaped by our
# housekeeping within the timeout + its 1 s period (+ the fence): cm_reaped +2, a DREQ for
# each, the connections file empty, no kernel report; the in-tree side's QPs go too. Then a
# new packet connects again (a new QP pair) and traffic flows both ways.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1 ifname=icm%d cm_idle_timeout=3
# mem: 1024
# timeout: 240
# kernels: stock debug
. /e2e/lib.sh
plan 22

dmesg_mark reap
cm_intree_pair 10.0.7
check "ping -s 60000 A->B" wait_for 30 ns_reach A 10.0.7.2 1 -s 60000
check "A: an active and a passive connection, both established" wait_for 10 cm_has icm0 2 ' state=established '
check "... one of each" sh -c "[ $(cm_n icm0 '^dir=active ') -eq 1 ] && [ $(cm_n icm0 '^dir=passive ') -eq 1 ]"
cm_show icm0
qa=$(cm_field icm0 '^dir=active' qpn); qp=$(cm_field icm0 '^dir=passive' qpn)
snap r ib:softib0 A:icm0
ds() { awk '{ print int($1 * 10) }' /proc/uptime; }	# uptime in 0.1 s
# the last packets both ways (A's request over the active QP, the reply into the passive
# one), then the clock: idle 3 s, checked every 1 s, then the DREQ and the fence
check "last ping before the idle period" ns_reach A 10.0.7.2 1 -s 60000
t0=$(ds)
check "A: both connections reaped (connections file empty)" wait_for 15 cm_has icm0 0 .
t1=$(ds)
diag "reaped $((t1 - t0))/10 s after the last packet"
check "... not before the idle timeout (>= 2.5 s after the last packet)" test $((t1 - t0)) -ge 25
check_delta "cm_reaped +2 (the active and the passive one)" r A:icm0 cm_reaped -eq 2
check_delta "a DREQ for each (established connections close with DREQ)" r ib:softib0 cm_tx_dreq -ge 2
check_delta "two connections destroyed" r A:icm0 cm_closed -ge 2
check_delta "no watchdog, no errors" r A:icm0 cm_watchdog_teardowns -eq 0
check "the in-tree side's RC QPs went too" wait_for 20 sh -c "! rdma resource show qp link softib1/1 | grep -q 'type RC'"
snap n ib:softib0 A:icm0
check "a new packet reconnects: ping -s 60000 A->B" wait_for 30 ns_reach A 10.0.7.2 1 -s 60000
check "A: active and passive established again" wait_for 10 cm_has icm0 2 ' state=established '
check "... on new QPs (not $qa, $qp)" sh -c "[ -n '$qa' ] && [ -n '$qp' ] && ! grep -Eq ' qpn=($qa|$qp) ' $(cm_file icm0 connections)"
check_delta "A sent a new REQ" n A:icm0 cm_opened -eq 1
check "ping -s 60000 B->A" ns_ping_all B 10.0.7.1 3 -s 60000
cm_show icm0; cm_ctrs A icm0
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
