#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, bad input from the wire (RFC 4755 §6 private data in a REQ): a raw ib_cm
# peer (tests/kmod/ipoib_cmreq_test, from softib0, which has no IPoIB of its own in this
# check) sends REQs to our listener on softib1 with the private data and service IDs a test
# chooses. RFC 4755 §6 private data: 8 octets, Reserved(8) | UD QPN(24) | Receive MTU(32).
# - valid data, both service IDs (Linux 0x1000..., RFC 4755 §3.5 0x0100...) -> REP carrying our
#   UD QPN and our Receive MTU; our connection goes when the peer REJects the REP;
# - all-zero or absent data (ib_cm pads with zeros), QPN 0/1/0xffffff -> REJ 5 (unsupported),
#   Receive MTU 0 or below 1280+4 -> REJ 26 (invalid MTU), each counted cm_rej_tx_priv_data;
#   a Receive MTU above ours, reserved bits and a garbage capability block are tolerated;
# - unknown service IDs -> REJ 8 from ib_cm (no listener), nothing reaches us;
# - RTU then DREQ -> DREP, the connection closed; a peer that vanishes after our REP (no RTU) is
#   cleaned up within our CM timeouts (cm_rep_timeouts);
# - 100 REQs with random private data: every one answered, nothing left in the table;
# - a valid REQ whose passive QP we cannot create (softib1's fail_create_qp 1, an HCA out of QP
#   memory) -> REJ 3 (No Resources) of ours, carrying our RFC 4755 §6 private data (our UD QPN
#   and Receive MTU, RFC 4755 §3.2), counted cm_setup_failures and cm_rej_tx_3_no_resources;
# then both ends ours in connected mode: traffic still flows, and the kernel log is clean.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# load: ipoib_cmreq_test
# mem: 1024
# timeout: 400
# kernels: stock debug
. /e2e/lib.sh
plan 54

CTL=/sys/kernel/debug/ipoib_cmreq_test/ctl
CONNS=/sys/kernel/debug/ib_ipoib_cm/icm1/connections
dmesg_mark badreq
check "icm1 (ours on softib1) exists" wait_netdev icm1
check "icm1 up" ip link set icm1 up
check "carrier on icm1" wait_carrier icm1 "" 60
lid=$(cat /sys/class/infiniband/softib1/ports/1/lid)
gid=$(tr -d ':' < /sys/class/infiniband/softib1/ports/1/gids/0)
qpn=$(cut -d: -f2-4 /sys/class/net/icm1/address | tr -d ':')
diag "target: lid $lid gid $gid UD QPN 0x$qpn"
lidn=$(printf '%d' "$lid")
myqpn=$(printf '%d' 0x$qpn)
sid_linux=$(printf '%x' $((0x1000000000000000 | 0x$qpn)))
sid_rfc=$(printf '%x' $((0x0100000000000000 | 0x$qpn)))
# priv QPN MTU [TAIL]: RFC 4755 §6 private data as hex (reserved octet 0), TAIL appended
priv() { printf '00%06x%08x%s' "$1" "$2" "${3:-}"; }
# req SID THEN [PRIV]: one REQ from softib0; prints the kmod's result line
req() { echo "req softib0 $lidn $gid $1 $2 ${3:-}" > $CTL && cat $CTL; }
# expect "desc" PATTERN SID THEN [PRIV]: the result line matches PATTERN (grep -E)
expect() {
    _d=$1 _p=$2; shift 2
    _r=$(req "$@" 2>&1)
    if printf '%s' "$_r" | grep -Eq -- "$_p"; then ok "$_d ($_r)"; else not_ok "$_d"; diag "got: $_r; wanted /$_p/"; fi
}
table_empty() { file_lacks $CONNS 0 'dir='; }

snap b -:icm1
expect "valid REQ, Linux service ID -> REP with our UD QPN and Receive MTU" \
    "result=rep .*rep_mtu=65524 rep_qpn=0x$(printf %x $myqpn) " $sid_linux rej "$(priv 0x00abcd 65524)"
expect "valid REQ, RFC 4755 service ID -> REP" "result=rep .*rep_qpn=0x$(printf %x $myqpn) " $sid_rfc rej "$(priv 0x00abcd 65524)"
check "our connections go after the peer REJects the REP" wait_for 10 table_empty
check_delta "two REQs accepted" b -:icm1 cm_accepted -eq 2
check_delta "... and the peer's two REJs (28, Consumer) counted by reason" b -:icm1 cm_rej_rx_28_consumer -eq 2
check_delta "... none under another reason" b -:icm1 cm_rej_rx_other -eq 0

snap p -:icm1
expect "all-zero private data -> REJ 5" "result=rej reason=5 " $sid_linux rej "$(priv 0 0)"
expect "no private data (ib_cm sends zeros) -> REJ 5" "result=rej reason=5 " $sid_linux rej
expect "QPN 1 (QP1) -> REJ 5" "result=rej reason=5 " $sid_linux rej "$(priv 1 65524)"
expect "QPN 0xffffff (multicast) -> REJ 5" "result=rej reason=5 " $sid_linux rej "$(priv 0xffffff 65524)"
expect "Receive MTU 0 -> REJ 26 (invalid MTU)" "result=rej reason=26 " $sid_linux rej "$(priv 0x00abcd 0)"
expect "Receive MTU 1283 (below IPv6's 1280 + 4) -> REJ 26" "result=rej reason=26 " $sid_linux rej "$(priv 0x00abcd 1283)"
check_delta "six REJs counted as bad private data" p -:icm1 cm_rej_tx_priv_data -eq 6
check_delta "none accepted" p -:icm1 cm_accepted -eq 0
check_delta "by reason: four REJ 5 (unsupported)" p -:icm1 cm_rej_tx_5_unsupported -eq 4
check_delta "by reason: two REJ 26 (invalid MTU)" p -:icm1 cm_rej_tx_26_invalid_mtu -eq 2

expect "Receive MTU 1284 (the smallest we take) -> REP" "result=rep " $sid_linux rej "$(priv 0x00abcd 1284)"
expect "Receive MTU 0xffffffff (clamped: the smaller wins) -> REP" "result=rep " $sid_linux rej "$(priv 0x00abcd 0xffffffff)"
expect "reserved octet 0xff -> REP (ignored on receive, RFC 4755 §6)" "result=rep " $sid_linux rej \
    "ff$(priv 0x00abcd 65524 | cut -c3-)"
expect "garbage capability block -> REP" "result=rep " $sid_linux rej "$(priv 0x00abcd 65524 49504300ff00ffff)"
check "tolerated REQs leave nothing behind" wait_for 10 table_empty

snap u -:icm1
expect "service ID for another QPN -> REJ 8 from ib_cm" "result=rej reason=8 " \
    "$(printf '%x' $((0x1000000000000000 | ((myqpn + 1) & 0xffffff))))" rej "$(priv 0x00abcd 65524)"
expect "service ID with the reserved bits set -> REJ 8" "result=rej reason=8 " \
    "$(printf '%x' $((0x1000000100000000 | myqpn)))" rej "$(priv 0x00abcd 65524)"
expect "service ID 0 -> REJ 8" "result=rej reason=8 " 0 rej "$(priv 0x00abcd 65524)"
check_delta "unknown service IDs never reach us" u -:icm1 cm_accepted -eq 0
check_delta "... so their REJ 8 is ib_cm's, not counted as ours" u -:icm1 cm_rej_tx_8_invalid_service_id -eq 0

snap c -:icm1
expect "RTU then DREQ -> DREP" "result=rep .*close=drep" $sid_linux rtu "$(priv 0x00abcd 65524)"
check "the closed connection leaves the table" wait_for 10 table_empty
check_delta "the DREQ counted" c -:icm1 cm_dreq_rx -eq 1

snap v -:icm1
expect "a peer that vanishes after our REP (no RTU)" "result=rep " $sid_linux vanish "$(priv 0x00abcd 65524)"
check "its connection shows while our REP is unanswered" grep -q 'dir=passive' $CONNS
# our REP: response timeout 18 (~1 s), retries as connected.md §3: gone well within 30 s
check "... and is cleaned up within our CM timeouts" wait_for 30 table_empty
check_delta "counted as a REP timeout" v -:icm1 cm_rep_timeouts -eq 1

snap r -:icm1
answered=0
i=0
while [ $i -lt 100 ]; do
    pd=$(head -c 92 /dev/urandom | od -An -tx1 | tr -d ' \n')
    r=$(req $sid_linux rej "$pd" 2>&1)
    case $r in *result=rej*|*result=rep*) answered=$((answered + 1)) ;; *) diag "REQ $i: $r" ;; esac
    i=$((i + 1))
done
check "100 REQs with random private data: every one answered" test $answered = 100
check "... and nothing left in the table" wait_for 10 table_empty
acc=$(delta r -:icm1 cm_accepted) bad=$(delta r -:icm1 cm_rej_tx_priv_data)
check "... each one accepted or refused as bad private data (accepted $acc, refused $bad)" test $((acc + bad)) = 100
r5=$(delta r -:icm1 cm_rej_tx_5_unsupported) r26=$(delta r -:icm1 cm_rej_tx_26_invalid_mtu) r28=$(delta r -:icm1 cm_rej_rx_28_consumer)
check "... the refusals by reason add up (REJ 5: $r5, REJ 26: $r26)" test $((r5 + r26)) = "$bad"
check "... every REP we sent was REJected by the peer with 28 ($r28)" test "$r28" = "$acc"

snap n -:icm1
FAULT=/sys/kernel/debug/softib/softib1/fault
check "softib1: its next QP creation fails (fail_create_qp 1)" sh -c "echo fail_create_qp 1 > $FAULT"
r=$(req $sid_linux rej "$(priv 0x00abcd 65524)" 2>&1)
check "a valid REQ whose QP we cannot create -> REJ 3 (No Resources): $r" sh -c "printf '%s' '$r' | grep -q 'result=rej reason=3 '"
check "... carrying our private data: our UD QPN and Receive MTU" \
    sh -c "printf '%s' '$r' | grep -q 'rej_qpn=0x$(printf %x $myqpn) rej_mtu=65524 '"
check "the fault was spent on our passive QP" sh -c "! grep -q fail_create_qp $FAULT"
check_delta "counted as a setup failure" n -:icm1 cm_setup_failures -eq 1
check_delta "... and one REJ 3 sent" n -:icm1 cm_rej_tx_3_no_resources -eq 1

check "icm0 exists" test -e /sys/class/net/icm0
ip link set icm1 down
cm_ours_pair 10.0.7
check "then ours <-> ours in connected mode: 60000-byte pings all answered" ns_ping_all A 10.0.7.2 3 -s 60000
cm_ctrs A icm0; cm_ctrs B icm1
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
