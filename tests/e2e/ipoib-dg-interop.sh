#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode <-> the unmodified in-tree ib_ipoib over softib: ours on softib0
# (icm0, namespace A), in-tree on softib1 (ib1, namespace B); the in-tree netdev on softib0
# stays down. ARP/ND both ways, ping v4 56/1400/2016 B with DF both ways, ping6, broadcast ping both ways, IPv6 all-nodes
# multicast ping both ways, iperf3.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1 ifname=icm%d
# mem: 1024
# timeout: 300
. /e2e/lib.sh
plan 20

check "icm0 (ours) and ib1 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/ib1'
check_output "icm0 is ours" 'driver: ib_ipoib_cm' ethtool -i icm0
check_output "ib1 is in-tree" 'driver: ib_ipoib$' ethtool -i ib1
ip link set ib0 down 2>/dev/null

ns_pair icm0 ib1
check "carrier on icm0" wait_carrier icm0 A 60
check "carrier on ib1" wait_carrier ib1 B 60
check "ping ours->in-tree 56 B" ns_reach A 10.0.0.2 5
check "ping in-tree->ours 1400 B" ns_reach B 10.0.0.1 5 -s 1400
check "ping ours->in-tree 2016 B with DF" ns_reach A 10.0.0.2 3 -s 2016 -M do
check "ping6 in-tree->ours" ns_exec B /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd00::1
check "ping6 ours->in-tree" ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd00::2
ns_exec B sh -c "echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts"
# a broadcast ping is answered by every host whose icmp_echo_ignore_broadcasts is 0, the
# sender included (over loopback): only a reply from the peer's address proves the path
check_output "broadcast ping ours->10.0.0.255: the in-tree peer answers" 'bytes from 10\.0\.0\.2:' ns_exec A /usr/bin/ping -b -c 3 -i 0.2 -W 2 10.0.0.255
check "ping in-tree->ours 56 B" ns_reach B 10.0.0.1 3
check "ping ours->in-tree 1400 B" ns_reach A 10.0.0.2 3 -s 1400
check "ping in-tree->ours 2016 B with DF" ns_reach B 10.0.0.1 3 -s 2016 -M do
ns_exec A sh -c "echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts"
check_output "broadcast ping in-tree->10.0.0.255: we answer" 'bytes from 10\.0\.0\.1:' ns_exec B /usr/bin/ping -b -c 3 -i 0.2 -W 2 10.0.0.255
# IPv6 all-nodes (ff02::1, MGID ff12:601b:ffff::1): a reply from the peer's link-local
# address (not our own loopback answer) proves both sides' joins and the peer's send path.
ll() { ip -n "$1" -6 addr show dev "$2" scope link | sed -n 's/.*inet6 \(fe80::[0-9a-f:]*\)\/64.*/\1/p' | head -n1; }
ll_a=$(ll A icm0); ll_b=$(ll B ib1)
diag "link-local: ours $ll_a, in-tree $ll_b"
check_output "ping6 all-nodes ours->in-tree: the peer answers" "from $ll_b" \
    ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 ff02::1%icm0
check_output "ping6 all-nodes in-tree->ours: we answer" "from $ll_a" \
    ns_exec B /usr/bin/ping -6 -c 3 -i 0.2 -W 2 ff02::1%ib1
check "iperf3 server in B listening" iperf3_server B 5201 -1
check_output "iperf3 TCP ours->in-tree" 'receiver' ns_exec A iperf3 -c 10.0.0.2 -t 5 -f m
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S icm0 | grep -v ': 0$')"
ns_delete_all
exit $(tap_status)
