#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib stage 2: the UNMODIFIED in-tree ib_ipoib in connected mode (RC QPs through ib_cm)
# between two namespaces, with SRQ (this file) or without (softib-cm-nosrq.sh sources it):
# 60000-byte pings both ways, link down/up, teardown, and no "RX drain timing out"
# (the LAST_WQE_REACHED + drain-WR ordering of docs/softib.md §3.4/§7.5).
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 26

srq=$(cat /sys/module/softib/parameters/srq)
diag "softib srq=$srq"
dmesg_mark cm
check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check "ib0 -> connected mode" sh -c 'echo connected > /sys/class/net/ib0/mode'
check "ib1 -> connected mode" sh -c 'echo connected > /sys/class/net/ib1/mode'
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.1.1/24 && ns_addr B ib1 10.0.1.2/24
check "MTU 65520 on ib0 and ib1" sh -c '/sbin/ip -n A link set ib0 mtu 65520 && /sbin/ip -n B link set ib1 mtu 65520'
check_output "ib0 mode connected, MTU 65520" 'mtu 65520 .*ipoib .*mode connected' sh -c \
    "/sbin/ip -n A -d link show ib0 | tr '\\n' ' '"
both_up() { has_carrier ib0 A && has_carrier ib1 B; }
check "carrier on both" wait_for 60 both_up
# Who connects: ipoib's connected mode opens one RC connection per direction, from the side
# that has something to send. With B ignoring echo requests only A sends unicast, so only A
# may open one: REQ from softib0 to softib1, REP back, RTU from softib0, and the pings ride
# the RC QP (softib's per-transport counters, softib/README.md).
# Static neighbours: no ARP exchange to wait for (it would not connect: the in-tree driver
# sends ARP over UD, unicast_arp_send).
addr_a=$(ns_exec A cat /sys/class/net/ib0/address); addr_b=$(ns_exec B cat /sys/class/net/ib1/address)
check "static neighbours with the RC flag (0x80) in the address" sh -c "/sbin/ip -n A neigh replace 10.0.1.2 lladdr $addr_b nud permanent dev ib0 && /sbin/ip -n B neigh replace 10.0.1.1 lladdr $addr_a nud permanent dev ib1 && case $addr_b in 80:*) ;; *) exit 1 ;; esac"
ns_exec B sh -c 'echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_all'
snap cm ib:softib0 ib:softib1
ns_exec A /usr/bin/ping -c 8 -i 0.5 -W 1 -s 60000 10.0.1.2 >/dev/null 2>&1
check_delta "A initiated: softib0 sent a REQ" cm ib:softib0 cm_tx_req -ge 1
check_delta "... softib1 received it" cm ib:softib1 cm_rx_req -ge 1
check_delta "... softib1 sent the REP" cm ib:softib1 cm_tx_rep -ge 1
check_delta "... softib0 sent the RTU" cm ib:softib0 cm_tx_rtu -ge 1
check_delta "... softib1 received the RTU" cm ib:softib1 cm_rx_rtu -ge 1
check_delta "B initiated nothing (no REQ from softib1)" cm ib:softib1 cm_tx_req -eq 0
check_delta "the 60000-byte pings arrived over RC on softib1" cm ib:softib1 rc_rx_packets -ge 2
check_delta "... not over UD (no UD message of that size fits: < 8 KB of UD)" cm ib:softib1 ud_rx_bytes -lt 8192
ns_exec B sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_all'
check "warm-up ping A->B (path + connection setup)" wait_for 60 ns_reach A 10.0.1.2 1
check "ping -s 60000 A->B" ns_ping_all A 10.0.1.2 5 -s 60000
check "ping -s 60000 B->A" ns_ping_all B 10.0.1.1 5 -s 60000
diag "$(rdma statistic show link softib0/1)"
check "link down A, down B" sh -c '/sbin/ip -n A link set ib0 down && /sbin/ip -n B link set ib1 down'
sleep 1
check "link up A and B" sh -c '/sbin/ip -n A link set ib0 up && /sbin/ip -n B link set ib1 up'
check "carrier again" wait_carrier ib0 A 60
check "ping -s 60000 A->B after down/up" ns_ping_all A 10.0.1.2 5 -s 60000
check "ping -s 60000 B->A after down/up" ns_ping_all B 10.0.1.1 5 -s 60000
check "link down both again (teardown of RC QPs)" sh -c '/sbin/ip -n A link set ib0 down && /sbin/ip -n B link set ib1 down'
check_rc "no 'RX drain timing out'" 1 dmesg_has 'RX drain timing out'
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib1/1)"
diag "$(dmesg_since_mark | grep -E 'softib|ib0|ib1' | tail -n 20)"
ns_delete_all
exit $(tap_status)
