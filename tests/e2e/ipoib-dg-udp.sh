#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iperf3 UDP over ib_ipoib_cm datagram mode, ours <-> ours (icm0 <-> icm1) and ours <-> the
# in-tree ib_ipoib (icm0 <-> ib2), both directions each, plus TCP ours <-> in-tree both ways.
# Every UDP run must move data and report its loss sanely: 0 <= lost <= total, the percentage
# is lost/total, and our netdev's counters saw at least the datagrams iperf3 counted.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 240
# tier: full
. /e2e/lib.sh
plan 14

check "icm0 icm1 (ours) and ib2 (in-tree) exist" wait_for 30 sh -c 'for d in icm0 icm1 ib2; do test -e /sys/class/net/$d || exit 1; done'
ip link set ib0 down 2>/dev/null
ip link set ib1 down 2>/dev/null
ns_trio icm0 icm1 ib2
carriers() { wait_carrier icm0 A 60 && wait_carrier icm1 B 60 && wait_carrier ib2 C 60; }
check "carrier on all three" carriers
check "pings" sh -c '/sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.2 -W 2 10.0.0.2 && /sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.2 -W 2 10.0.0.3'
for ns in A B C; do iperf3_server $ns || bail "iperf3 server in $ns not listening"; done

ethstat() { ctr "$1" "$2" "$3"; }
# udp NAME CLIENT_NS SERVER_ADDR [-R] : iperf3 UDP 20 Mbit/s for 4 s; checks the receiver line
# "... lost/total (pct%)  receiver".
udp() {
    _name=$1 _ns=$2 _addr=$3; shift 3
    ip netns exec "$_ns" iperf3 -u -b 20M -t 4 -f m -c "$_addr" "$@" >/tmp/udp.out 2>&1
    _rc=$?
    _line=$(grep 'receiver' /tmp/udp.out | tail -n1)
    echo "UDP $_name: $_line" >> /tmp/udp.sum
    [ $_rc = 0 ] && [ -n "$_line" ] || { cat /tmp/udp.out; return 1; }
    echo "$_line" | awk '{
        for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, a, "/"); lost = a[1]; total = a[2]; pct = $(i + 1) }
        gsub(/[()%]/, "", pct)
        if (total == "" || total <= 0) { print "no datagrams"; exit 1 }
        if (lost < 0 || lost > total) { print "lost " lost " of " total; exit 1 }
        want = 100 * lost / total
        if (pct - want > 0.5 || want - pct > 0.5) { print "pct " pct " but " lost "/" total; exit 1 }
        if (lost == total) { print "everything lost"; exit 1 }
    }' || return 1
}
# snap NS DEV, then grew NS DEV MIN: DEV's rx_packets grew by at least MIN since the snapshot
snap() { _s0=$(ethstat "$1" "$2" rx_packets); }
grew() { _s1=$(ethstat "$1" "$2" rx_packets); echo "  $2 rx_packets +$((_s1 - _s0)), iperf3 delivered $3" >> /tmp/udp.sum; [ $((_s1 - _s0)) -ge "$3" ]; }
delivered() { awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, a, "/"); print a[2] - a[1] } }' /tmp/udp.out | tail -n1; }

snap B icm1
check "UDP ours->ours (icm0->icm1)" udp icm0-icm1 A 10.0.0.2
check "icm1 counted every delivered datagram" grew B icm1 "$(delivered)"
snap A icm0
check "UDP ours<-ours (icm1->icm0, -R)" udp icm1-icm0 A 10.0.0.2 -R
check "icm0 counted every delivered datagram" grew A icm0 "$(delivered)"
check "UDP ours->in-tree (icm0->ib2)" udp icm0-ib2 A 10.0.0.3
snap A icm0
check "UDP in-tree->ours (ib2->icm0)" udp ib2-icm0 C 10.0.0.1
check "icm0 counted every delivered datagram" grew A icm0 "$(delivered)"
check_output "TCP ours->in-tree" 'receiver' ns_exec A iperf3 -c 10.0.0.3 -t 3 -f m
check_output "TCP in-tree->ours" 'receiver' ns_exec C iperf3 -c 10.0.0.1 -t 3 -f m
check_output "no receive errors on icm0" '^0 0$' sh -c "echo \$(/sbin/ip netns exec A ethtool -S icm0 | sed -n 's/^ *\(rx_wc_errors\|rx_drop_short\): //p')"
check "kernel log clean" dmesg_clean
diag "$(cat /tmp/udp.sum)"
diag "$(ns_exec A ethtool -S icm0 | grep -v ': 0$')"
ns_delete_all
exit $(tap_status)
