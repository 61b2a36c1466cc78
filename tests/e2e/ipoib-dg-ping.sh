#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode, ours <-> ours over softib (two hosts in namespaces): netdev
# identity (type 32, 20-byte address, broadcast with the P_Key, parent, dev_port, ethtool -i),
# broadcast join -> carrier, ARP, IPv4 ping at 56/1400 B and the full UD MTU with DF, IPv6
# (ND over send-only/full-member joins) ping, broadcast ping, sysfs mode/pkey, counters.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 240
# tier: full
. /e2e/lib.sh
plan 35

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check_output "type 32 (ARPHRD_INFINIBAND)" '^32$' cat /sys/class/net/ib0/type
# flags 0x80 (RFC 4755 §3.1): the CM listener runs in both modes, so we accept connections
check_output "20-byte address, RC flag, QPN in octets 1-3" '^80:[0-9a-f]{2}:[0-9a-f]{2}:[0-9a-f]{2}:fe:80(:[0-9a-f]{2}){14}$' cat /sys/class/net/ib0/address
check_output "broadcast address carries the P_Key" '^00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff$' cat /sys/class/net/ib0/broadcast
check "ib0 parent is softib0's parent device" test -e /sys/class/net/ib0/device/infiniband/softib0
check_output "dev_port 0" '^0$' cat /sys/class/net/ib0/dev_port
check_output "ethtool -i: driver ib_ipoib_cm" 'driver: ib_ipoib_cm' ethtool -i ib0
check_output "sysfs mode datagram" '^datagram$' cat /sys/class/net/ib0/mode
check_output "sysfs pkey 0xffff" '^0xffff$' cat /sys/class/net/ib0/pkey
check_output "sysfs umcast writable" '^1$' sh -c 'echo 1 > /sys/class/net/ib0/umcast && cat /sys/class/net/ib0/umcast && echo 0 > /sys/class/net/ib0/umcast'
dmesg_mark modewrite
check_fail "writing bogus to mode fails with EINVAL" 'Invalid argument' sh -c 'echo bogus > /sys/class/net/ib0/mode'
check "mode write logged one line" dmesg_has 'invalid mode "bogus"'

ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24
ip -n A addr add fd00::1/64 dev ib0 nodad
ip -n B addr add fd00::2/64 dev ib1 nodad
check "carrier on ib0 (broadcast join done)" wait_carrier ib0 A 60
check "carrier on ib1" wait_carrier ib1 B 60
# tx_queue_len 2 x send queue, like the in-tree driver: the default qdisc, not noqueue
check_output "ib0 has a real qdisc (not noqueue) and txqueuelen 256" 'qdisc (pfifo_fast|fq_codel|pfifo|fq) .*qlen 256' ip -n A link show ib0
check_output "MTU 2044 from the broadcast group" 'mtu 2044' ip -n A link show ib0
check "ping A->B 56 B" ns_reach A 10.0.0.2 5
check "ping B->A 1400 B" ns_reach B 10.0.0.1 5 -s 1400
check "ping A->B 2016 B (2044 UD MTU) with DF" ns_reach A 10.0.0.2 3 -s 2016 -M do
# One byte over the UD MTU with DF: the IP layer refuses it (EMSGSIZE) before our xmit sees it.
snap df A:ib0
check_fail "ping A->B 2017 B with DF is refused locally (EMSGSIZE)" '[Mm]essage too long' ns_reach A 10.0.0.2 1 -s 2017 -M do
check_delta "... so nothing reached our xmit (tx_drop_too_big)" df A:ib0 tx_drop_too_big -eq 0
# A route MTU above the device's lets the same packet through to our xmit (IPv4 does not clamp
# a route's MTU to the device's): it must be dropped there and, with DF, answered with ICMP
# frag-needed (counted; the locked route MTU ignores it, so no reply either).
check "route to B with MTU 2100 (above the device's)" ip -n A route add 10.0.0.2/32 dev ib0 mtu lock 2100
check_rc "ping A->B 2017 B with DF over that route: no reply" 1 ns_reach A 10.0.0.2 1 -s 2017 -M do
check_delta "... dropped in our xmit, the sender told by ICMP frag-needed (counted)" df A:ib0 tx_icmp_frag_needed -eq 1
ip -n A route del 10.0.0.2/32 dev ib0
check_output "ARP entry has a 20-byte hw address (with the RC flag)" 'lladdr 80(:[0-9a-f]{2}){19}' ip -n A neigh show 10.0.0.2
check "ping6 A->B" ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd00::2
ll_b=$(ip -n B -6 addr show dev ib1 scope link | sed -n 's/.*inet6 \(fe80::[0-9a-f:]*\)\/64.*/\1/p' | head -n1)
diag "B link-local: $ll_b"
check "ping6 A->B link-local (interface ID from the port GUID)" ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 "$ll_b%ib0"
ns_exec B sh -c "echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts"
check_output "broadcast ping A->10.0.0.255: B answers" 'bytes from 10\.0\.0\.2:' ns_exec A /usr/bin/ping -b -c 3 -i 0.2 -W 2 10.0.0.255
check_output "ping6 all-nodes ff02::1 from A: B answers" "from $ll_b" ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 ff02::1%ib0
check_output "ethtool -S counts rx_packets" '^ +rx_packets: [1-9]' ns_exec B ethtool -S ib1
check_output "ethtool -g shows the rings" 'TX:[[:space:]]+128' ns_exec A ethtool -g ib0
check_output "debugfs mcast: broadcast group joined and attached" 'mgid ff12:401b:ffff:0000:0000:0000:ffff:ffff mlid 0x[0-9a-f]+ joined broadcast attached' cat /sys/kernel/debug/ib_ipoib_cm/ib0/mcast
check_output "debugfs paths: B's GID resolved" 'gid fe80:.* dlid 0x0003 resolved' cat /sys/kernel/debug/ib_ipoib_cm/ib0/paths
check_output "ethtool -C/-c rx-usecs 10" 'rx-usecs:[[:space:]]+10' sh -c '/sbin/ip netns exec A ethtool -C ib0 rx-usecs 10 rx-frames 16 && /sbin/ip netns exec A ethtool -c ib0'
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S ib0 | grep -v ': 0$')"
diag "$(ns_exec B ethtool -S ib1 | grep -v ': 0$')"
diag "$(cat /sys/kernel/debug/ib_ipoib_cm/ib1/mcast 2>/dev/null)"
diag "$(dmesg | grep -i -E 'ib_ipoib_cm|softib' | tail -n 20)"
ns_delete_all
exit $(tap_status)
