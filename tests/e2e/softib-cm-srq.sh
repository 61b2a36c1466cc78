#!/bin/sh
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
# tier: core
. /e2e/lib.sh
plan 16

srq=$(cat /sys/module/softib/parameters/srq)
diag "softib srq=$srq"
dmesg_mark cm
check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check "ib0 -> connected mode" sh -c 'echo connected > /sys/class/net/ib0/mode'
check "ib1 -> connected mode" sh -c 'echo connected > /sys/class/net/ib1/mode'
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.1.1/24 && ns_addr B ib1 10.0.1.2/24
ip -n A link set ib0 mtu 65520; ip -n B link set ib1 mtu 65520
check_output "ib0 mode connected, MTU 65520" 'mtu 65520.*mode connected|mode connected.*' sh -c \
    "/sbin/ip -n A -d link show ib0 | tr '\n' ' '"
both_up() { has_carrier ib0 A && has_carrier ib1 B; }
check "carrier on both" wait_for 60 both_up
check "warm-up ping A->B (path + connection setup)" wait_for 60 ns_ping A 10.0.1.2 1
check "ping -s 60000 A->B" ns_ping A 10.0.1.2 5 -s 60000
check "ping -s 60000 B->A" ns_ping B 10.0.1.1 5 -s 60000
diag "$(rdma statistic show link softib0/1)"
check "link down A, down B" sh -c '/sbin/ip -n A link set ib0 down && /sbin/ip -n B link set ib1 down'
sleep 1
check "link up A and B" sh -c '/sbin/ip -n A link set ib0 up && /sbin/ip -n B link set ib1 up'
check "carrier again" wait_carrier ib0 A 60
check "ping -s 60000 A->B after down/up" ns_ping A 10.0.1.2 5 -s 60000
check "ping -s 60000 B->A after down/up" ns_ping B 10.0.1.1 5 -s 60000
check "link down both again (teardown of RC QPs)" sh -c '/sbin/ip -n A link set ib0 down && /sbin/ip -n B link set ib1 down'
check_fail "no 'RX drain timing out'" dmesg_has 'RX drain timing out'
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib1/1)"
diag "$(dmesg_since_mark | grep -E 'softib|ib0|ib1' | tail -n 20)"
ns_delete_all
exit $(tap_status)
