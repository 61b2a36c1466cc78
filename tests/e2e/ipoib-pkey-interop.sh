#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# P_Key children, ours <-> the in-tree ib_ipoib over softib with pkeys=0x8001: the in-tree
# driver is loaded first and holds the rtnl kind "ipoib", so ours (on softib0 only, icm0) logs
# that and offers children through sysfs create_child alone; the in-tree side (ib1 on softib1)
# makes its child through its own create_child. icm0.8001 (namespace A) <-> ib1.8001 (B):
# ping v4 both ways incl. the full UD MTU with DF, ping6 both ways; both deleted again.
# No `ip link add ... type ipoib` here: with the in-tree module holding the kind it would reach
# the in-tree handler even for our parent.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 pkeys=0x8001
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1 ifname=icm%d
# mem: 1024
# timeout: 240
. /e2e/lib.sh
plan 19

sysw() { sh -c "echo $2 > $1"; }

check "icm0 (ours) and ib1 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/ib1'
check "ours logged that the rtnl kind is held" dmesg_has 'ib_ipoib_cm: rtnl kind ipoib is held by another module \(ib_ipoib\?\); ip link add \.\.\. type ipoib unavailable, use create_child'
check_output "logged once" '^1$' sh -c 'dmesg | grep -c "rtnl kind ipoib is held"'
ip link set ib0 down 2>/dev/null
ip link set ib1 up
check "create_child 0x8001 on icm0 (ours)" sysw /sys/class/net/icm0/create_child 0x8001
check "create_child 0x8001 on ib1 (in-tree)" sysw /sys/class/net/ib1/create_child 0x8001
check_output "icm0.8001 is ours" 'driver: ib_ipoib_cm' ethtool -i icm0.8001
check_output "ib1.8001 is in-tree" 'driver: ib_ipoib$' ethtool -i ib1.8001
check_output "icm0.8001: parent icm0, pkey 0x8001" '^icm0 0x8001$' sh -c 'echo $(cat /sys/class/net/icm0.8001/parent /sys/class/net/icm0.8001/pkey)'

ns_create A B
ns_move icm0 A && ns_move icm0.8001 A
ns_move ib1 B && ns_move ib1.8001 B
ip -n B link set ib1 up
ns_addr A icm0.8001 10.0.1.1/24 && ns_addr B ib1.8001 10.0.1.2/24
ip -n A addr add fd01::1/64 dev icm0.8001 nodad
ip -n B addr add fd01::2/64 dev ib1.8001 nodad
check "carrier on icm0.8001" wait_carrier icm0.8001 A 60
check "carrier on ib1.8001" wait_carrier ib1.8001 B 60
check "ping ours->in-tree over 0x8001" ns_reach A 10.0.1.2 3
check "ping in-tree->ours over 0x8001 2016 B with DF" ns_reach B 10.0.1.1 3 -s 2016 -M do
check "ping6 ours->in-tree" ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd01::2
check "ping6 in-tree->ours" ns_exec B /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd01::1

dmesg_mark delete
check "delete_child 0x8001 on icm0 (ours)" ns_exec A sh -c 'echo 0x8001 > /sys/class/net/icm0/delete_child'
check "ours logged the deletion" wait_dmesg 5 'ib_ipoib_cm: icm0: deleted child icm0.8001'
check "delete_child 0x8001 on ib1 (in-tree)" ns_exec B sh -c 'echo 0x8001 > /sys/class/net/ib1/delete_child'
check "both children gone" wait_for 10 sh -c '! /sbin/ip -n A link show icm0.8001 2>/dev/null && ! /sbin/ip -n B link show ib1.8001 2>/dev/null'
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
