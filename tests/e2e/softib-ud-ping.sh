#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib stage 1: two simulated hosts, the UNMODIFIED in-tree ib_ipoib in datagram mode,
# one netdev per namespace: ports ACTIVE with unique LIDs, SM LID 1, carrier, ping v4
# (56 B, 1400 B, full UD MTU 2044 with DF), ping6, broadcast ping, multicast ping (IPv4
# 224.0.0.1 all-hosts and IPv6 ff02::1 all-nodes: groups other than the broadcast group,
# which ipoib joins through the SA), and the fabric counters.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 26

dmesg_mark udping
port=/sys/class/infiniband
check "two ib_devices softib0 softib1" test "$(ib_devices | tr '\n' ' ')" = "softib0 softib1 "
check_output "softib0 port 1 ACTIVE" '4: ACTIVE' cat $port/softib0/ports/1/state
check_output "softib0 LID 0x2" '^0x2$' cat $port/softib0/ports/1/lid
check_output "softib1 LID 0x3" '^0x3$' cat $port/softib1/ports/1/lid
check_output "SM LID 0x1" '^0x1$' cat $port/softib1/ports/1/sm_lid
check_output "link layer InfiniBand" 'InfiniBand' cat $port/softib0/ports/1/link_layer
check_output "ib_cm set CM_SUP" '0x00010000' cat $port/softib0/ports/1/cap_mask
check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check "ib0 parent is softib0's platform device" test -e /sys/class/net/ib0/device/infiniband/softib0
check_output "ethtool -i ib0 bus-info softib.0" 'bus-info: softib.0' ethtool -i ib0

ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24
ip -n A addr add fd00::1/64 dev ib0 nodad
ip -n B addr add fd00::2/64 dev ib1 nodad
check "carrier on ib0 (broadcast join done)" wait_carrier ib0 A 60
check "carrier on ib1" wait_carrier ib1 B 60
diag "$(ip -n A -d link show ib0)"
check "ping A->B 56 B" ns_reach A 10.0.0.2 5
check "ping B->A 1400 B" ns_reach B 10.0.0.1 5 -s 1400
check "ping A->B 2016 B (2044 UD MTU) with DF" ns_reach A 10.0.0.2 3 -s 2016 -M do
check_fail "ping A->B 2017 B with DF is refused locally (EMSGSIZE)" '[Mm]essage too long' ns_reach A 10.0.0.2 1 -s 2017 -M do
check "ping6 A->B" ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd00::2
ns_exec B sh -c "echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts"
check "broadcast ping A->10.0.0.255" ns_exec A /usr/bin/ping -b -c 3 -i 0.2 -W 2 10.0.0.255
ns_exec A sh -c "echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts"
check_output "multicast ping A->224.0.0.1: B replies" 'from 10\.0\.0\.2' \
    ns_exec A /usr/bin/ping -c 3 -i 0.2 -W 2 -I ib0 224.0.0.1
b_ll() { ip -n B -6 -o addr show dev ib1 scope link | sed -n 's/.*inet6 \(fe80[^/]*\).*/\1/p'; }
mc6() { _ll=$(b_ll); [ -n "$_ll" ] &&
    ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 ff02::1%ib0 | grep -q "from $_ll"; }
check "multicast ping6 A->ff02::1%ib0: B replies from its link-local" wait_for 20 mc6
diag "ib1 link-local: $(b_ll)"
check_output "sa_groups lists 224.0.0.1's group ff12:401b:ffff::1" 'ff12:401b:ffff:0000:0000:0000:0000:0001' \
    cat /sys/kernel/debug/softib/sa_groups
diag "$(cat /sys/kernel/debug/softib/sa_groups)"
check_output "ibstat: Active, Base lid 2, SM lid 1" 'State: Active.*Base lid: 2.*SM lid: 1' sh -c "ibstat softib0 | tr '\\n' ' '"
check_output "rdma link shows ACTIVE" 'state ACTIVE' rdma link show softib0/1
check_output "rdma statistic shows tx_packets" 'tx_packets [1-9]' rdma statistic show link softib0/1
check_output "sa_groups lists the broadcast group" 'ff12:401b:ffff:0000:0000:0000:ffff:ffff' cat /sys/kernel/debug/softib/sa_groups
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib1/1)"
diag "$(dmesg | grep -i -E 'softib|ib0|ib1' | tail -n 20)"
ns_delete_all
exit $(tap_status)
