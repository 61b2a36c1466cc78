#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iperf3 UDP over ib_ipoib_cm datagram mode, ours <-> ours (icm0 <-> icm1) and ours <-> the
# in-tree ib_ipoib (icm0 <-> ib2), both directions each, plus TCP ours <-> in-tree both ways.
# Every UDP run must move data and lose no datagram beyond those a counter saw dropped (the
# receiving HCA with no receive posted, the receiving socket with its buffer full), and at most
# 1 % in all; our netdev's counters saw at least the datagrams iperf3 delivered.
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
# udp NAME CLIENT_NS SERVER_ADDR RX_NS RX_IBDEV [-R]: iperf3 UDP 20 Mbit/s for 4 s, received
# in RX_NS on softib host RX_IBDEV. UD has no flow control: a datagram arriving with no receive
# posted is dropped by the HCA (IBA 9.8.3.3; softib counts drop_no_rwqe), and the receiving
# socket drops what its buffer cannot hold (RcvbufErrors). Every lost datagram must be one of
# those, and at most UDP_MAXPCT % of them (20 Mbit/s is well below what the UD ring and a
# TCG guest take: a loss above that is a receive path falling behind, not noise).
UDP_MAXPCT=1
# The receiving socket gets an 8 MiB buffer (iperf3 -w 4M, doubled by the kernel; rmem_max is
# raised to allow it): with the 208 KiB default it holds ~40 ms of this stream, and a TCG guest
# descheduled longer than that by a busy host dropped 6 % at the socket (RcvbufErrors), which
# says nothing about the path this bound is for.
echo 8388608 > /proc/sys/net/core/rmem_max; echo 8388608 > /proc/sys/net/core/wmem_max
udp() {
    _name=$1 _ns=$2 _addr=$3 _rns=$4 _rib=$5; shift 5
    _rb=$(udp_rcvbuf "$_rns") _nr=$(hwc "$_rib" drop_no_rwqe)
    ip netns exec "$_ns" iperf3 -u -b 20M -w 4M -t 4 -f m -c "$_addr" "$@" >/tmp/udp.out 2>&1
    _rc=$?
    _cnt=$(( $(udp_rcvbuf "$_rns") - _rb + $(hwc "$_rib" drop_no_rwqe) - _nr ))
    _res=$(udp_loss_ok /tmp/udp.out "$_cnt" $UDP_MAXPCT); _ok=$?
    echo "UDP $_name: $_res; $(grep -E 'sender|receiver' /tmp/udp.out | tr -s ' ' | tr '\n' ' ')" >> /tmp/udp.sum
    echo "$_res"
    [ $_rc = 0 ] && [ $_ok = 0 ] || { cat /tmp/udp.out; return 1; }
}
# snap NS DEV, then grew NS DEV MIN: DEV's rx_packets grew by at least MIN since the snapshot
snap() { _s0=$(ethstat "$1" "$2" rx_packets); }
grew() { _s1=$(ethstat "$1" "$2" rx_packets); echo "  $2 rx_packets +$((_s1 - _s0)), iperf3 delivered $3" >> /tmp/udp.sum; [ $((_s1 - _s0)) -ge "$3" ]; }
delivered() { udp_loss /tmp/udp.out | awk '{ print $2 - $1 }'; }

snap B icm1
check "UDP ours->ours (icm0->icm1): every loss counted, <= $UDP_MAXPCT %" udp icm0-icm1 A 10.0.0.2 B softib1
check "icm1 counted every delivered datagram" grew B icm1 "$(delivered)"
snap A icm0
check "UDP ours<-ours (icm1->icm0, -R): every loss counted, <= $UDP_MAXPCT %" udp icm1-icm0 A 10.0.0.2 A softib0 -R
check "icm0 counted every delivered datagram" grew A icm0 "$(delivered)"
check "UDP ours->in-tree (icm0->ib2): every loss counted, <= $UDP_MAXPCT %" udp icm0-ib2 A 10.0.0.3 C softib2
snap A icm0
check "UDP in-tree->ours (ib2->icm0): every loss counted, <= $UDP_MAXPCT %" udp ib2-icm0 C 10.0.0.1 A softib0
check "icm0 counted every delivered datagram" grew A icm0 "$(delivered)"
check_output "TCP ours->in-tree" 'receiver' ns_exec A iperf3 -c 10.0.0.3 -t 3 -f m
check_output "TCP in-tree->ours" 'receiver' ns_exec C iperf3 -c 10.0.0.1 -t 3 -f m
check_output "no receive errors on icm0" '^0 0$' sh -c "echo \$(/sbin/ip netns exec A ethtool -S icm0 | sed -n 's/^ *\(rx_wc_errors\|rx_drop_short\): //p')"
check "kernel log clean" dmesg_clean
diag "$(cat /tmp/udp.sum)"
diag "$(ns_exec A ethtool -S icm0 | grep -v ': 0$')"
ns_delete_all
exit $(tap_status)
