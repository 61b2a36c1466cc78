#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode <-> the unmodified in-tree ib_ipoib over softib: ours on softib0
# (icm0, namespace A), in-tree on softib1 (ib1, namespace B); the in-tree netdev on softib0
# stays down. ARP/ND both ways, ping v4 56/1400/2016 B with DF both ways, ping6, broadcast ping both ways, IPv6 all-nodes
# multicast ping both ways, iperf3.
# Then in-tree peers in connected mode against ours still in datagram mode (docs/security.md,
# the unproven budget): ours listens in both modes (the RC flag in its address), so each peer's
# packets come over an RC connection of its own (one-way: ours answers over UD). softib0 has no
# SRQ and max_nonsrq_conn_qp=4, so the unproven budget is 2 and the unreserved budget 3 (the
# limit less its reserve of a quarter); the in-tree ib1 (B), ib2 (C) and ib3 (D), one after
# the other, each ping ours 5 times and every ping is answered: each connection's first
# packet gave its unproven slot back (cm_unproven_released_rx +3), no REQ was refused
# (cm_req_unproven_full +0, cm_req_unreserved_full +0), three passive connections and no
# active one, debugfs cm_limits reads unproven_used=0 unproven=2 unreserved_used=3
# unreserved=3 (the one-way connections keep their unreserved slots).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=4 host_srq=0
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1 ifname=icm%d max_nonsrq_conn_qp=4
# mem: 1024
# timeout: 300
. /e2e/lib.sh
plan 36

check "icm0 (ours) and ib1..ib3 (in-tree) exist" wait_for 30 sh -c 'for d in icm0 ib1 ib2 ib3; do test -e /sys/class/net/$d || exit 1; done'
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

# in-tree peers in connected mode; ours stays in datagram mode
check "icm0 still in datagram mode" test "$(ns_exec A cat /sys/class/net/icm0/mode)" = datagram
ns_create C D
ns_move ib2 C && ns_move ib3 D
ns_addr C ib2 10.0.0.3/24 && ns_addr D ib3 10.0.0.4/24
cd_up() { has_carrier ib2 C && has_carrier ib3 D; }
check "carrier on ib2 and ib3" wait_for 60 cd_up
ma=$(ns_exec A cat /sys/class/net/icm0/address)
check "icm0's address carries the RC flag (RFC 4755 §3.1)" sh -c "printf '%s' '$ma' | grep -q '^80:'"
# NS DEV N: DEV (in-tree, in NS as 10.0.0.N) to connected mode, static neighbours with ours both ways
to_cm() {
    ns_exec "$1" sh -c "echo connected > /sys/class/net/$2/mode" &&
        ip -n "$1" neigh replace 10.0.0.1 lladdr "$ma" nud permanent dev "$2" &&
        ip -n A neigh replace "10.0.0.$3" lladdr "$(ns_exec "$1" cat "/sys/class/net/$2/address")" nud permanent dev icm0
}
all_cm() { to_cm B ib1 2 && to_cm C ib2 3 && to_cm D ib3 4; }
check "ib1..ib3 -> connected mode, static neighbours both ways" all_cm
lim() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$(cm_file icm0 cm_limits)"; }
check "debugfs cm_limits: the unproven budget is 2 (max_nonsrq_conn_qp=4)" test "$(lim unproven)" = 2
check "debugfs cm_limits: the unreserved budget is 3 (a reserve of 1)" test "$(lim unreserved)" = 3
snap u A:icm0
check "in-tree B (connected) -> ours: 5 pings, every one answered" ns_ping_all B 10.0.0.1 5
check "in-tree C (connected) -> ours: 5 pings, every one answered" ns_ping_all C 10.0.0.1 5
check "in-tree D (connected) -> ours: 5 pings, every one answered (beyond the budget)" ns_ping_all D 10.0.0.1 5
cm_show icm0
check "ours: three passive connections established, no active one" sh -c "[ $(cm_n icm0 '^dir=passive .* state=established ') -eq 3 ] && [ $(cm_n icm0 '^dir=active ') -eq 0 ]"
check_delta "... the 15 pings came over RC" u A:icm0 rc_rx_packets -ge 15
check_delta "each connection's first packet gave its unproven slot back" u A:icm0 cm_unproven_released_rx -eq 3
check_delta "no REQ refused by the unproven budget" u A:icm0 cm_req_unproven_full -eq 0
check "debugfs cm_limits: unproven_used=0 with three connections" test "$(lim unproven_used)" = 0
check_delta "no REQ refused by the unreserved budget" u A:icm0 cm_req_unreserved_full -eq 0
check "debugfs cm_limits: unreserved_used=3 with three connections" test "$(lim unreserved_used)" = 3
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S icm0 | grep -v ': 0$')"
ns_delete_all
exit $(tap_status)
