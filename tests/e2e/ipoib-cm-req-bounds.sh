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
# - a peer that stretches the handshake with MRAs (IBA 12.6.6: ib_cm then waits the MRA's
#   service timeout, 2.4 h at 31), both ways at once: our REP answered by an MRA and never by
#   an RTU is torn down by the same accepting deadline (cm_accept_timeouts); our REQ to a
#   listener the raw peer runs on softib0 (a static neighbour names its UD QPN and port GID,
#   icm1 in connected mode, a 60000-byte ping) answered by an MRA and never by a REP is given up
#   at our connect deadline (10 s at softib's lifetime 14, cm_connect_timeouts): its queue
#   falls back (cm_fall_backs) and ib_cm's destroy cancels the REQ (the listener gets REJ 4,
#   Timeout);
# - the REQ that held rmmod for hours (timeouts 31, lifetime 30, no answer to a REP) is
#   refused, and rmmod ib_ipoib_cm right after it takes seconds, with an MRA'd REP (service
#   timeout 23: 35 s, no retries) and an MRA'd REQ of ours still pending.
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
plan 42

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

# MRAs both ways. The listener's UD QPN is its own choice; the address is an IPoIB one
# (RFC 4391 §9.1.1) with the connected-mode flag (RFC 4755 §3.1), that QPN and softib0's GID.
lqpn=00beef
gid0=$(tr -d ':' < /sys/class/infiniband/softib0/ports/1/gids/0)
lhw="80:$(echo $lqpn$gid0 | sed 's/../&:/g; s/:$//')"
passive_gone() { ! grep -q 'dir=passive' $CONNS; }
active_gone() { ! grep -q 'dir=active' $CONNS; }
listened() { grep -q "listen_req=$1 listen_mra=$1 " $CTL; }
check "the raw peer listens on softib0 for UD QPN 0x$lqpn, answering REQs with MRAs" sh -c "echo listen softib0 $lqpn > $CTL"
check "icm1 -> connected mode, a static neighbour for the listener" sh -c "echo connected > /sys/class/net/icm1/mode &&
    /sbin/ip addr add 10.0.9.1/24 dev icm1 && /sbin/ip neigh replace 10.0.9.2 lladdr $lhw nud permanent dev icm1"
snap m -:icm1
expect "Linux's timers, our REP answered by an MRA (service timeout 31) and no RTU" "result=rep .*mra=sent" 20 18 mra
t0=$(cut -d. -f1 /proc/uptime)
ping -c 1 -s 60000 -W 2 10.0.9.2 > /dev/null 2>&1 &
check "... its connection shows as accepting" grep -q 'dir=passive.*state=accepting' $CONNS
check "our REQ to the listener is answered by an MRA" wait_for 10 listened 1
check "... our connection shows as connecting" grep -q 'dir=active.*state=connecting' $CONNS
check "both MRAs reached our connections (ib_cm now waits 2.4 h for each)" wait_for 5 delta_eq m -:icm1 cm_mra_rx 2
check "the MRA'd accepting one is gone within the next 15 s (its REQ at most 30 s before): the MRA did not extend our deadline" wait_for 15 passive_gone
diag "accepting one gone about $(( $(cut -d. -f1 /proc/uptime) - t0 )) s after its REQ"
check "... and the MRA'd connecting one within the 15 s after that: our connect deadline, not ib_cm's 2.4 h" wait_for 15 active_gone
diag "both gone after about $(( $(cut -d. -f1 /proc/uptime) - t0 )) s"
check_delta "counted as an accept timeout" m -:icm1 cm_accept_timeouts -eq 1
check_delta "... and as a connect timeout" m -:icm1 cm_connect_timeouts -eq 1
check_delta "the ping's queue fell back to the UD path" m -:icm1 cm_fall_backs -eq 1
check "our REQ cancelled by ib_cm's destroy: the listener got REJ 4 (Timeout)" wait_for 5 grep -q 'listen_rej=1 listen_rej_reason=4$' $CTL
diag "raw peer: $(cat $CTL)"

expect "timeouts 31, lifetime 30, peer silent after a REP -> refused" "result=rej reason=5 " 31 30 vanish
# (the listener's address is listed as dir=none state=fallback until its 1 s back-off ends)
check "no connection kept for it" wait_for 5 table_empty || cm_show icm1
# pending at rmmod: an MRA'd REP (REQ with Max CM Retries 0: under a REJ of ours from REP_SENT
# ib_cm would wait its 35 s out in ib_destroy_cm_id) and an MRA'd REQ of ours
# The REQ of ours first, the REP last, so that both are seconds old at rmmod, well inside our
# deadlines, and each MRA is shown to have reached our connection (cm_mra_rx), not only sent.
echo 23 > $PAR/mra_timeout
echo 20 > $PAR/cm_timeout; echo 18 > $PAR/life; echo 0 > $PAR/cm_retries
snap r -:icm1
# a ping every 0.2 s: those within the fall back's 1 s back-off take the UD path (refused above
# its MTU), the first one after it connects again
ping -c 25 -i 0.2 -s 60000 -W 1 10.0.9.2 > /dev/null 2>&1 &
check "an MRA'd REQ of ours left pending (once the fall back's back-off is over)" wait_for 10 listened 2
r=$(echo "req softib0 $lidn $gid $sid mra $pd" > $CTL 2>&1 && cat $CTL)
check "an MRA'd REP left pending ($r)" sh -c "printf '%s' '$r' | grep -q 'result=rep .*mra=sent'"
check "... both MRAs reached our connections" wait_for 5 delta_eq r -:icm1 cm_mra_rx 2
check "... both still pending: one accepting, one connecting" sh -c "grep -q 'dir=passive.*state=accepting' $CONNS &&
    grep -q 'dir=active.*state=connecting' $CONNS"
t0=$(cut -d. -f1 /proc/uptime)
check "rmmod ib_ipoib_cm right after" rmmod ib_ipoib_cm
t=$(( $(cut -d. -f1 /proc/uptime) - t0 ))
check "... took $t s (at most 20)" test "$t" -le 20
check "kernel log clean" dmesg_clean
exit $(tap_status)
