#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode without an SRQ, ours <-> ours: a QP that enters error by itself, its receives
# flushed before its error event arrives (a peer's RDMA with a bad R_Key: the responder's QP
# goes to error with an affiliated error and no receive error of its own, IBA 11.6.3.1).
# softib `qp_fatal QPN MS` on B's end of the connection: every WQE flushes now,
# IB_EVENT_QP_ACCESS_ERR comes 3 s later. B's ring reports RxEmpty first (the state machine's
# RxEmpty row); B tears down at once (DREQ to A), its fence completes and the connection, its
# QP and ring are freed: debugfs lists none, cm_closed counts it, rc_pinned_kib is 0 again, no
# drain timeout. Traffic then recovers on a new pair and 60000-byte pings are all answered.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 srq=0
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: core
. /e2e/lib.sh
plan 21

F1=/sys/kernel/debug/softib/softib1/fault
dmesg_mark fenceflushed
cm_ours_pair 10.0.21
check "warm-up ping A->B" wait_for 30 ns_reach A 10.0.21.2 1
rc_lines() { grep -c ' qpn=' "$(cm_file "$1" connections)"; }
one_each() { cm_has icm0 1 ' state=established ' && cm_has icm1 1 ' state=established '; }
check "one connection each, established" wait_for 15 one_each
qb=$(cm_field icm1 ' qpn=' qpn)
diag "B's QP $qb: $(cat "$(cm_file icm1 connections)")"
snap f ib:softib1 A:icm0 B:icm1
check "qp_fatal on B's QP, its event 3 s after the flushes" sh -c "echo 'qp_fatal $qb 3000' > $F1"
check_fail "qp_fatal on a QP already in error is refused" 'Invalid argument' sh -c "echo 'qp_fatal $qb 0' > $F1"
check "B's receives flushed" wait_for 5 delta_ge f ib:softib1 flushed_wqes 1
# before the event (3 s): the flushes alone end it
check "B's connection freed (no RC QP listed) before its error event" wait_for 5 sh -c "[ \$(grep -c ' qpn=' $(cm_file icm1 connections)) = 0 ]"
check "A's end freed too (B's DREQ)" wait_for 10 sh -c "[ \$(grep -c ' qpn=' $(cm_file icm0 connections)) = 0 ]"
cm_show icm0 icm1
check_delta "B: the connection destroyed (cm_closed)" f B:icm1 cm_closed -eq 1
check_delta "B: counted as the QP's error (cm_qp_fatal)" f B:icm1 cm_qp_fatal -eq 1
check "B: nothing pinned by RC rings (rc_pinned_kib 0)" test "$(ctr B icm1 rc_pinned_kib)" = 0
check "A: nothing pinned by RC rings (rc_pinned_kib 0)" test "$(ctr A icm0 rc_pinned_kib)" = 0
sleep 3	# the late QP event: the QP is gone (softib raises none) or ignored
check_delta "B: no drain timeout" f B:icm1 cm_drain_timeouts -eq 0
diag "B: ignored events +$(delta f B:icm1 cm_ignored_events)"
check "traffic recovers: a reply A->B (60 s)" ping_within 60 A 10.0.21.2
check "a new pair, established" wait_for 30 one_each
check "B's new QP is not the faulted one" sh -c "! grep -q ' qpn=$qb ' $(cm_file icm1 connections)"
check "5 pings of 60000 bytes A->B, every one answered" ns_ping_all A 10.0.21.2 5 -s 60000
check "kernel log clean" dmesg_clean
