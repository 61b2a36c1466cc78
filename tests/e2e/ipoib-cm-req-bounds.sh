#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, a REQ's timers from a hostile peer: ib_cm copies the REQ's CM response
# timeouts and Local ACK Timeout into our cm_id and then waits them out (our REP resent every
# Local CM Response Timeout; TIMEWAIT = the Local ACK Timeout), and ib_destroy_cm_id waits for
# that REP at ifdown/rmmod. A raw ib_cm peer (tests/kmod/ipoib_cmreq_test on softib0) sends REQs
# to our listener on softib1:
# - Linux's values (CM response timeout 20, OpenSM's lifetime 18 -> Local ACK Timeout 19) -> REP;
# - a CM response timeout above 20 (21, 31) or a Local ACK Timeout above 21 (22, 31) -> REJ 5
#   (Unsupported Request) with our private data, counted cm_rej_tx_req_bounds, no connection;
# - a REQ within the bounds whose peer never answers our REP (Linux's timers: ib_cm alone would
#   resend the REP for 65 s) is torn down by our own accepting deadline (10 s,
#   cm_accept_timeouts);
# - the REQ that held rmmod for hours (timeouts 31, lifetime 30, no answer to a REP) is
#   refused, and rmmod ib_ipoib_cm right after it takes seconds.
# Bounds: docs/connected.md §3.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# load: ipoib_cmreq_test
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: core
. /e2e/lib.sh
plan 25

CTL=/sys/kernel/debug/ipoib_cmreq_test/ctl
PAR=/sys/module/ipoib_cmreq_test/parameters
CONNS=/sys/kernel/debug/ib_ipoib_cm/icm1/connections
dmesg_mark reqbounds
check "icm1 (ours on softib1) exists" wait_netdev icm1
check "icm1 up" ip link set icm1 up
check "carrier on icm1" wait_carrier icm1 "" 60
lid=$(cat /sys/class/infiniband/softib1/ports/1/lid)
gid=$(tr -d ':' < /sys/class/infiniband/softib1/ports/1/gids/0)
qpn=$(cut -d: -f2-4 /sys/class/net/icm1/address | tr -d ':')
lidn=$(printf '%d' "$lid")
sid=$(printf '%x' $((0x1000000000000000 | 0x$qpn)))
pd=$(printf '00%06x%08x' 0x00abcd 65524)
# expect "desc" PATTERN CM_TIMEOUT LIFE THEN: one REQ with these timers; its result matches PATTERN
expect() {
    echo "$3" > $PAR/cm_timeout; echo "$4" > $PAR/life; echo 15 > $PAR/cm_retries
    _r=$(echo "req softib0 $lidn $gid $sid $5 $pd" > $CTL 2>&1 && cat $CTL)
    if printf '%s' "$_r" | grep -Eq -- "$2"; then ok "$1 ($_r)"; else not_ok "$1"; diag "got: $_r; wanted /$2/"; fi
}
table_empty() { ! grep -q 'dir=' $CONNS; }

snap b -:icm1
expect "Linux's timers (20, Local ACK Timeout 19) -> REP" "result=rep " 20 18 rej
expect "our own REQ's timers (18, lifetime 14) -> REP" "result=rep " 18 14 rej
expect "Local ACK Timeout 21 (the bound) -> REP" "result=rep " 20 20 rej
check "the accepted ones go after the peer's REJ" wait_for 10 table_empty
expect "CM response timeout 21 -> REJ 5" "result=rej reason=5 " 21 14 rej
expect "CM response timeout 31 -> REJ 5" "result=rej reason=5 " 31 14 rej
expect "Local ACK Timeout 22 -> REJ 5" "result=rej reason=5 " 20 21 rej
expect "Local ACK Timeout 31 -> REJ 5" "result=rej reason=5 " 20 30 rej
check_delta "three accepted" b -:icm1 cm_accepted -eq 3
check_delta "four refused for their timers" b -:icm1 cm_rej_tx_req_bounds -eq 4
check_delta "... as REJ 5 (Unsupported Request)" b -:icm1 cm_rej_tx_5_unsupported -eq 4
check "nothing left in the table" wait_for 10 table_empty

snap a -:icm1
expect "Linux's timers, peer silent after our REP" "result=rep " 20 18 vanish
check "its connection shows as accepting" grep -q 'dir=passive.*state=accepting' $CONNS
t0=$(cut -d. -f1 /proc/uptime)
check "... and is gone within 15 s, before ib_cm's REP retries end" wait_for 15 table_empty
diag "accepting slot gone after about $(( $(cut -d. -f1 /proc/uptime) - t0 )) s"
check_delta "counted as an accept timeout" a -:icm1 cm_accept_timeouts -eq 1
check_delta "... not as a REP timeout" a -:icm1 cm_rep_timeouts -eq 0

expect "timeouts 31, lifetime 30, peer silent after a REP -> refused" "result=rej reason=5 " 31 30 vanish
check "no connection kept for it" table_empty
t0=$(cut -d. -f1 /proc/uptime)
check "rmmod ib_ipoib_cm right after" rmmod ib_ipoib_cm
t=$(( $(cut -d. -f1 /proc/uptime) - t0 ))
check "... took $t s (at most 20)" test "$t" -le 20
check "kernel log clean" dmesg_clean
exit $(tap_status)
