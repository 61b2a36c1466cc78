#!/bin/sh
# iperf3 TCP over in-tree ipoib on softib, 10 s in datagram mode and 10 s in connected mode
# (switched in place inside the namespaces), plus 5 s of UDP; no loss of the link, counters
# move, kernel log clean.
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: all
. /e2e/lib.sh
plan 8

dmesg_mark iperf
wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.7.1/24 && ns_addr B ib1 10.0.7.2/24
both_up() { has_carrier ib0 A && has_carrier ib1 B; }
check "carrier" wait_for 60 both_up
ns_exec B iperf3 -s -D -1 >/dev/null 2>&1; sleep 1
check_output "iperf3 TCP 10 s, datagram mode" 'receiver' ns_exec A iperf3 -c 10.0.7.2 -t 10 -f m
ip -n A link set ib0 type ipoib mode connected; ip -n B link set ib1 type ipoib mode connected
ip -n A link set ib0 mtu 65520; ip -n B link set ib1 mtu 65520
check_output "ib0 in connected mode (netlink), MTU 65520" 'mtu 65520.*mode connected' sh -c \
    "/sbin/ip -n A -d link show ib0 | tr '\\n' ' '"
check "ping -s 60000 in connected mode" ns_ping A 10.0.7.2 3 -s 60000
ns_exec B iperf3 -s -D -1 >/dev/null 2>&1; sleep 1
check_output "iperf3 TCP 10 s, connected mode" 'receiver' ns_exec A iperf3 -c 10.0.7.2 -t 10 -f m
ns_exec B iperf3 -s -D -1 >/dev/null 2>&1; sleep 1
check_output "iperf3 UDP 5 s at 20 Mbit/s, 1400 B" 'receiver' ns_exec A iperf3 -c 10.0.7.2 -u -b 20M -l 1400 -t 5 -f m
check_output "RC traffic counted" 'rx_bytes [1-9][0-9]{6,}' rdma statistic show link softib1/1
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib1/1)"
ns_delete_all
exit $(tap_status)
