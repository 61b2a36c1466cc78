#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode between an SRQ host and a non-SRQ host (softib host_srq=), ours on both ends
# and ours <-> in-tree: three softib hosts, ours on softib0 (icm0, A) and softib1 (icm1, B),
# the in-tree ib_ipoib on softib2 (ib2, C; its ib0/ib1 down). This file: host_srq=1,0,0 (A
# with SRQ, B and C without); ipoib-cm-mixed-srq-rev.sh sources it with host_srq=0,1,1. Each
# of ours reports its own mode (an SRQ only on the SRQ host, rdma resource show srq), and for
# each pair A<->B (ours<->ours), A<->C and B<->C (ours<->in-tree) 60000-byte pings and a short
# iperf3 TCP work both ways over RC (rc_rx_bytes grow on both ends' ports).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3 host_srq=1,0,0
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1280
# timeout: 360
# kernels: stock debug
. /e2e/lib.sh
plan 28

hs=$(cat /sys/module/softib/parameters/host_srq)
diag "softib host_srq=$hs"
dmesg_mark mixed
check "icm0, icm1 (ours) and ib2 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1 && test -e /sys/class/net/ib2'
ip link set ib0 down 2>/dev/null; ip link set ib1 down 2>/dev/null
check "all three -> connected mode" sh -c 'for i in icm0 icm1 ib2; do echo connected > /sys/class/net/$i/mode || exit 1; done'
ns_trio icm0 icm1 ib2
check "MTU 65520 on all three" sh -c '/sbin/ip -n A link set icm0 mtu 65520 && /sbin/ip -n B link set icm1 mtu 65520 && /sbin/ip -n C link set ib2 mtu 65520'
up3() { has_carrier icm0 A && has_carrier icm1 B && has_carrier ib2 C; }
check "carrier on all three" wait_for 60 up3
i=0
for want in $(echo "$hs" | tr , ' '); do
    if [ $i -lt 2 ]; then
        if [ "$want" = 1 ]; then
            check "softib$i (srq=1): ours created an SRQ" sh -c "rdma resource show srq | grep -q 'dev softib$i '"
        else
            check_rc "softib$i (srq=0): no SRQ (control: the SRQ host lists one)" 1 sh -c "rdma resource show srq | grep -q 'dev softib$i '"
        fi
    fi
    i=$((i + 1))
done
# pair NS_X IP_X IB_X NS_Y IP_Y IB_Y NAME PORT: 60000-byte pings and iperf3 both ways, over RC
pair() {
    snap p ib:$3 ib:$6
    check "$7: ping -s 60000 $1->$4" wait_for 30 ns_reach "$1" "$5" 1 -s 60000
    check "$7: ping -s 60000 $4->$1" ns_ping_all "$4" "$2" 3 -s 60000
    check "$7: iperf3 server in $4" iperf3_server "$4" "$8"
    check "$7: iperf3 $1->$4, 3 s" sh -c "/sbin/ip netns exec $1 iperf3 -c $5 -p $8 -t 3 -f m > /tmp/i1.out 2>&1"
    check "$7: iperf3 $4->$1 (-R), 3 s" sh -c "/sbin/ip netns exec $1 iperf3 -c $5 -p $8 -t 3 -f m -R > /tmp/i2.out 2>&1"
    diag "$(grep -h receiver /tmp/i1.out /tmp/i2.out)"
    check "$7: both ports received >= 1 MB over RC" sh -c "[ \$(( $(delta p ib:$3 rc_rx_bytes) )) -ge 1000000 ] && [ \$(( $(delta p ib:$6 rc_rx_bytes) )) -ge 1000000 ]"
}
pair A 10.0.0.1 softib0 B 10.0.0.2 softib1 "ours<->ours" 5301
pair A 10.0.0.1 softib0 C 10.0.0.3 softib2 "ours(A)<->in-tree" 5302
pair B 10.0.0.2 softib1 C 10.0.0.3 softib2 "ours(B)<->in-tree" 5303
cm_show icm0 icm1
check "A: every established connection has receives posted" file_lacks "$(cm_file icm0 connections)" 1 ' rx_posted=0 ' ' state=established '
check "B: every established connection has receives posted" file_lacks "$(cm_file icm1 connections)" 1 ' rx_posted=0 ' ' state=established '
check "A: connections to B and C established" wait_for 5 sh -c "[ \$(grep -c ' state=established ' $(cm_file icm0 connections)) -ge 2 ]"
cm_ctrs A icm0; cm_ctrs B icm1
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
