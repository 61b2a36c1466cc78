#!/bin/sh
# Connected mode ours <-> ours (both announce kCapBidir, design.md §4 item 5): ONE RC
# connection carries both directions. softib srq=0 and nonsrq_min_recv=1, the hardest case
# for the never-zero rule: each QP starts with a single receive posted and grows on demand.
# iperf3 --bidir (both directions moving at once) while debugfs is sampled: every sample shows
# the same single QP pair (no reconnect: the QPN set does not change), rx_posted >= 1 on every
# established QP, RNR NAKs rare (softib rnr_nak: with rnr_retry 7 no send ever fails) and both
# rings grown from their one buffer (rc_rx_grown); then 60000-byte pings both ways.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 srq=0
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d nonsrq_min_recv=1
# Then the interface-wide RC send bound (debugfs rc_send) is back to 0 in flight on both
# ends, with no underflow: a slot leaked per send would hold the shared netdev queue.
# mem: 1024
# timeout: 420
# kernels: stock debug
. /e2e/lib.sh
plan 35

ca=/sys/kernel/debug/ib_ipoib_cm/icm0/connections
cb=/sys/kernel/debug/ib_ipoib_cm/icm1/connections
ra=/sys/kernel/debug/ib_ipoib_cm/icm0/rc_send
rb=/sys/kernel/debug/ib_ipoib_cm/icm1/rc_send
dmesg_mark bidir
check "icm0 and icm1 exist (both ours)" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1'
check "both -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode && echo connected > /sys/class/net/icm1/mode'
ns_create A B
ns_move icm0 A && ns_move icm1 B
ns_addr A icm0 10.0.2.1/24 && ns_addr B icm1 10.0.2.2/24
both_up() { has_carrier icm0 A && has_carrier icm1 B; }
check "carrier on both" wait_for 60 both_up
check "MTU 65520 on both" sh -c '/sbin/ip -n A link set icm0 mtu 65520 && /sbin/ip -n B link set icm1 mtu 65520'

snap s ib:softib0 ib:softib1 A:icm0 B:icm1
check "warm-up ping A->B (ARP over UD, path, connection)" wait_for 30 ns_ping A 10.0.2.2 1
check "ping -s 60000 A->B" ns_ping A 10.0.2.2 3 -s 60000
check "ping -s 60000 B->A" ns_ping B 10.0.2.1 3 -s 60000
# qps FILE: the "qpn rqpn" pairs of a connections file, sorted
qps() { sed -n 's/.* qpn=\(0x[0-9a-f]*\) rqpn=\(0x[0-9a-f]*\) .*/\1 \2/p' "$1" | sort | tr '\n' ' '; }
one_bidir() { [ "$(wc -l < "$1")" -eq 1 ] && grep -q ' state=established .* bidir=1 ' "$1"; }
check "A: one connection, established, bidir=1" one_bidir $ca
check "B: one connection, established, bidir=1" one_bidir $cb
qa=$(qps $ca); qb=$(qps $cb)
diag "A: $(cat $ca)"
diag "B: $(cat $cb)"
# the two ends of one connection: A's qpn is B's rqpn and the other way round
pair_ok() { set -- $qa; _a1=$1 _a2=$2; set -- $qb; [ "$_a1" = "$2" ] && [ "$_a2" = "$1" ]; }
check "A's and B's lines are the two ends of the same RC connection" pair_ok
check_delta "exactly one REQ in all (one side connected, the other accepted)" s ib:softib0 cm_tx_req -le 1
check "... and softib1 sent none if softib0 sent one" sh -c "[ \$(( $(delta s ib:softib0 cm_tx_req) + $(delta s ib:softib1 cm_tx_req) )) -eq 1 ]"
# neg_pair SRC: since snapshot s, SRC's end of the one connection negotiated (ethtool cm_neg_*,
# counted once at established) what two of ours with the defaults agree: bidir, checksum-free
# (cm_csum_free=1), a capability block, the same Receive MTU, the Linux service ID
neg_pair() {
    diag "$1 cm_neg_* +: bidir $(delta s $1 cm_neg_bidir) oneway $(delta s $1 cm_neg_oneway) no_caps $(delta s $1 cm_neg_no_caps) csum_free $(delta s $1 cm_neg_csum_free) rfc_sid $(delta s $1 cm_neg_rfc_sid) mtu_capped $(delta s $1 cm_neg_mtu_capped)"
    delta_eq s $1 cm_neg_bidir 1 && delta_eq s $1 cm_neg_oneway 0 && delta_eq s $1 cm_neg_no_caps 0 &&
        delta_eq s $1 cm_neg_csum_free 1 && delta_eq s $1 cm_neg_mtu_capped 0 && delta_eq s $1 cm_neg_rfc_sid 0
}
check "ethtool A: negotiated once: bidir, checksum-free, same MTU, Linux service ID" neg_pair A:icm0
check "ethtool B: the same, counted by its passive end" neg_pair B:icm1

check "iperf3 server in B" iperf3_server B 5201
snap i ib:softib0 ib:softib1 A:icm0 B:icm1
ns_exec A iperf3 -c 10.0.2.2 -t 10 -f m --bidir > /tmp/iperf.out 2>&1 &
ipid=$!
# sample both files while traffic moves in both directions
: > /tmp/samples
: > /tmp/rcsend
for _ in $(seq 1 30); do
    cat $ca $cb >> /tmp/samples
    cat $ra $rb >> /tmp/rcsend
    echo "A $(qps $ca) B $(qps $cb)" >> /tmp/qpsets
    sleep 0.3
done
wait $ipid
irc=$?
diag "$(tail -n 6 /tmp/iperf.out)"
check "iperf3 --bidir finished" test $irc = 0
diag "rc_send inflight seen: $(sed -n 's/^inflight=\([0-9]*\) .*/\1/p' /tmp/rcsend | sort -n | uniq -c | tr '\n' ' ')"
check "every sample: RC sends in flight within the bound" sh -c "awk -F'[= ]' '\$1 == \"inflight\" && (\$4 < 1 || \$2 > \$4) { bad = 1 } END { exit bad || NR == 0 }' /tmp/rcsend"
# sends complete within a poll or two once iperf3 has stopped
rc_idle() { grep -qx 'inflight=0 limit=[0-9]* underflows=0' "$1"; }
check "A: no RC send in flight after the run, no underflow" wait_for 10 rc_idle $ra
check "B: no RC send in flight after the run, no underflow" wait_for 10 rc_idle $rb
diag "rc_send after the run: A $(cat $ra), B $(cat $rb)"
check_output "iperf3 --bidir: both directions reported" 'TX-C.*receiver|RX-C.*receiver' cat /tmp/iperf.out
check "every sample: rx_posted >= 1 on every established QP" sh -c "! grep ' state=established ' /tmp/samples | grep -q ' rx_posted=0 '"
check "every sample: the same QPN set as before the run (no reconnect)" sh -c "[ \$(sort -u /tmp/qpsets | wc -l) -eq 1 ] && grep -qx 'A $qa B $qb' /tmp/qpsets"
# rnr_retry is 7 (infinite): an empty ring never fails a send, it shows as RNR NAKs (softib's
# requester counts them), so those are what is bounded: the rings grow from one buffer and
# are reposted every poll, so a NAK is rare (at most 1 per 100 RC messages placed)
rnr_rare() {
    _nak=$(delta i "ib:$1" rnr_nak) && _rx=$(delta i "ib:$2" rc_rx_packets) || return 1
    diag "$1: rnr_nak +$_nak for $2's rc_rx_packets +$_rx"
    [ $((_nak * 100)) -le "$_rx" ] && [ "$_rx" -gt 0 ]
}
check "RNR NAKs to softib0's sends rare" rnr_rare softib0 softib1
check "RNR NAKs to softib1's sends rare" rnr_rare softib1 softib0
check_delta "A's ring grew from one buffer (nonsrq_min_recv=1)" s A:icm0 rc_rx_grown -ge 1
check_delta "B's ring grew from one buffer" s B:icm1 rc_rx_grown -ge 1
check_delta "both directions rode RC: softib0 received >= 1 MB over RC" i ib:softib0 rc_rx_bytes -ge 1000000
check_delta "... and softib1 too" i ib:softib1 rc_rx_bytes -ge 1000000
check_delta "B sent >= 1 MB over the connection it accepted" i B:icm1 rc_tx_bytes -ge 1000000
diag "rx_posted seen: $(sed -n 's/.* rx_posted=\([0-9]*\) .*/\1/p' /tmp/samples | sort -n | uniq -c | tr '\n' ' ')"
diag "$(ns_exec A ethtool -S icm0 | grep -E '^ +(cm_|rc_)' | grep -v ': 0$' | tr '\n' ' ')"
diag "$(ns_exec B ethtool -S icm1 | grep -E '^ +(cm_|rc_)' | grep -v ': 0$' | tr '\n' ' ')"
# Idle shrink (issue 13 item 1): after more than 5 s without demand the rings stop replacing
# completed buffers until they are back at nonsrq_min_recv; pings then still get through
# (nothing posted is cancelled: never zero), and the table shows the smaller rx_size=.
ra=$(sed -n 's/.* rx_size=\([0-9]*\) .*/\1/p' $ca | head -n1)
snap z A:icm0 B:icm1
sleep 7
check "after 7 s idle: 20 pings A->B over the same connection" ns_ping A 10.0.2.2 20
check_delta "A's ring shrank (rc_rx_shrunk)" z A:icm0 rc_rx_shrunk -ge 1
check_delta "B's ring shrank" z B:icm1 rc_rx_shrunk -ge 1
rb=$(sed -n 's/.* rx_size=\([0-9]*\) .*/\1/p' $ca | head -n1)
diag "A's ring: rx_size $ra before the idle period, $rb after; $(head -n1 $ca)"
check "A's rx_size went down, and not to 0 (rx_size $ra -> $rb)" test "${rb:-0}" -ge 1 -a "${rb:-0}" -lt "${ra:-0}"
check_output "cm_limits: the non-SRQ limit comes from nonsrq_mem_mb, logged at load" 'source=nonsrq_mem_mb' \
    sh -c "dmesg | grep -q 'nonsrq_mem_mb=128 at ~[0-9]* KiB per idle connection: at most [0-9]* connections' && cat /sys/kernel/debug/ib_ipoib_cm/icm0/cm_limits"
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
