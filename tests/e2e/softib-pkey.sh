#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib P_Keys: pkeys=8001 adds 0x8001 to every port's P_Key table; in-tree ipoib child
# interfaces ib0.8001/ib1.8001 join their own broadcast group and ping each other; a child
# for a P_Key not in the table never gets carrier; P_Key mismatches are dropped and counted.
# load: ib_core
# load: ib_cm
# load: softib hosts=2 pkeys=8001
# load: ib_ipoib
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 9

check_output "P_Key table index 1 is 0x8001" '^0x8001$' cat /sys/class/infiniband/softib0/ports/1/pkeys/1
wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
ip link set ib0 up; ip link set ib1 up
check "add child ib0.8001" ip link add link ib0 name ib0.8001 type ipoib pkey 0x8001
check "add child ib1.8001" ip link add link ib1 name ib1.8001 type ipoib pkey 0x8001
check "add child ib0.8002 (P_Key not in the table)" ip link add link ib0 name ib0.8002 type ipoib pkey 0x8002
ns_create A B
ns_move ib0.8001 A && ns_move ib1.8001 B
ns_addr A ib0.8001 10.0.4.1/24 && ns_addr B ib1.8001 10.0.4.2/24
ip link set ib0.8002 up
kids_up() { has_carrier ib0.8001 A && has_carrier ib1.8001 B; }
check "carrier on both children" wait_for 60 kids_up
check "ping over P_Key 0x8001 A->B" ns_reach A 10.0.4.2 5
check "ping over P_Key 0x8001 B->A 1400 B" ns_reach B 10.0.4.1 3 -s 1400
check_output "SA has the 0x8001 broadcast group" 'ff12:401b:8001:0000:0000:0000:ffff:ffff' cat /sys/kernel/debug/softib/sa_groups
sleep 3
check_rc "ib0.8002 has no carrier" 1 has_carrier ib0.8002
diag "$(ip -d link show ib0.8002)"
diag "$(cat /sys/kernel/debug/softib/sa_groups)"
diag "$(rdma statistic show link softib0/1)"
ns_delete_all
ip link del ib0.8002 2>/dev/null
exit $(tap_status)
