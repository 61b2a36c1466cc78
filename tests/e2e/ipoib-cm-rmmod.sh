#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, rmmod ib_ipoib_cm under RC traffic, ours in both roles: ours (icm0, A)
# against the in-tree ib_ipoib (ib1, B), iperf3 TCP both ways at once over connected mode, so
# ours has an active connection (its data) and a passive one (the in-tree side's data, which
# never rides an accepted connection). rmmod under that traffic must finish (no QP whose fence
# is open may stay: ForceDestroy at teardown, docs/connected.md §2), leave no RC QP and no PD
# of ours on softib0 (the in-tree ib0 there is down, so every RC QP on softib0 is ours) and no
# kernel report. The in-tree side's peer is then dead: after insmod again, connected mode
# comes back and 60000-byte pings work both ways over new connections.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1 ifname=icm%d
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: core
. /e2e/lib.sh
plan 27

ko=/e2e/modules/ib_ipoib_cm.ko
rc0() { rdma resource show qp link softib0/1 | grep 'type RC'; }
dmesg_mark cmrmmod
cm_intree_pair 10.0.10
check "ping -s 60000 A->B (both connections)" wait_for 30 ns_reach A 10.0.10.2 1 -s 60000
check "A: an active and a passive connection, established" wait_for 10 cm_has icm0 2 ' state=established '
check "iperf3 server in A" iperf3_server A 5202
check "iperf3 server in B" iperf3_server B 5201
snap t ib:softib0 ib:softib1
/sbin/ip netns exec A iperf3 -c 10.0.10.2 -p 5201 -t 60 > /tmp/t1.out 2>&1 & c1=$!
/sbin/ip netns exec B iperf3 -c 10.0.10.1 -p 5202 -t 60 > /tmp/t2.out 2>&1 & c2=$!
moving() { delta_ge t ib:softib0 rc_rx_bytes 2000000 && delta_ge t ib:softib1 rc_rx_bytes 2000000; }
check "RC traffic both ways (> 2 MB received over RC on each port)" wait_for 40 moving
cm_show icm0
check "control: rdma lists our RC QPs on softib0 while loaded" rc0
check "control: rdma lists our PD while loaded" sh -c 'rdma resource show pd | grep ib_ipoib_cm'
dmesg_mark rmmod
t0=$(cut -d. -f1 /proc/uptime)
check "rmmod ib_ipoib_cm under RC traffic" rmmod ib_ipoib_cm
diag "rmmod took about $(( $(cut -d. -f1 /proc/uptime) - t0 )) s"
check "icm0 gone" sh -c '! /sbin/ip -n A link show icm0 >/dev/null 2>&1'
check_rc "no RC QP left on softib0" 1 rc0
check_rc "no PD of ours left" 1 sh -c 'rdma resource show pd | grep ib_ipoib_cm'
check "kernel log clean after rmmod" dmesg_clean
kill $c1 $c2 2>/dev/null; wait $c1 $c2 2>/dev/null
ip netns del A
check "insmod again" insmod $ko ports=softib0:1 ifname=icm%d
check "icm0 again" wait_netdev icm0 "" 30
check "icm0 -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode'
ns_create A && ns_move icm0 A && ns_addr A icm0 10.0.10.1/24
check "carrier on both" wait_for 60 _cm_intree_up
check "MTU 65520, static neighbour for B" sh -c "/sbin/ip -n A link set icm0 mtu 65520 &&
    /sbin/ip -n A neigh replace 10.0.10.2 lladdr $(ns_exec B cat /sys/class/net/ib1/address) nud permanent dev icm0"
# our new UD QP has a new QPN, so a new address: B's static entry follows it
check "B's neighbour for A: the new address" ns_ip B neigh replace 10.0.10.1 lladdr "$(ns_exec A cat /sys/class/net/icm0/address)" nud permanent dev ib1
check "ping -s 60000 A->B after reload" wait_for 60 ns_reach A 10.0.10.2 1 -s 60000
check "ping -s 60000 B->A after reload" wait_for 30 ns_reach B 10.0.10.1 1 -s 60000
check "A: active and passive established again" wait_for 10 cm_has icm0 2 ' state=established '
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
