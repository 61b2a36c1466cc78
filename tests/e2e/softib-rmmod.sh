#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmmod softib (IB device removal) while both IPoIB drivers carry traffic: the in-tree
# ib_ipoib in datagram mode on softib0/softib1, ours (ib_ipoib_cm) in connected mode with
# 60000-byte pings on softib2/softib3. The devices unregister under load, every netdev on them
# goes away, both drivers stay loaded and unload afterwards, and the kernel log stays clean.
# The in-tree driver is not put in connected mode here: its device removal (like its rmmod)
# destroys the CQs before the TX reap work has run, and WARNs now and then; that race is
# tests/e2e/known-issues/intree-rmmod-cm-race.sh (it failed this scenario in CI once, on
# df2d153, when the in-tree pair ran connected mode).
# load: ib_core
# load: ib_cm
# load: softib hosts=4 time_scale=100
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib2:1,softib3:1 ifname=icm%d
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 12

wait_for 30 sh -c 'for i in ib0 ib1 icm0 icm1; do test -e /sys/class/net/$i || exit 1; done'
echo connected > /sys/class/net/icm0/mode; echo connected > /sys/class/net/icm1/mode
ns_create A B C D
ns_move ib0 A; ns_move ib1 B; ns_move icm0 C; ns_move icm1 D
ns_addr A ib0 10.0.5.1/24; ns_addr B ib1 10.0.5.2/24
ns_addr C icm0 10.0.6.1/24; ns_addr D icm1 10.0.6.2/24
ip -n C link set icm0 mtu 65520; ip -n D link set icm1 mtu 65520
for p in "ib0 A" "ib1 B" "icm0 C" "icm1 D"; do set -- $p; wait_carrier $1 $2 60; done
check "datagram ping (in-tree)" ns_reach A 10.0.5.2 2
check "connected ping -s 60000 (ours)" wait_for 30 ns_reach C 10.0.6.2 1 -s 60000
check_output "ours holds an established RC connection" 'state=established' cat "$(cm_file icm0 connections)"
ip netns exec A /usr/bin/ping -q -i 0.01 -c 100000 10.0.5.2 >/dev/null 2>&1 &
ip netns exec C /usr/bin/ping -q -i 0.01 -s 60000 -c 100000 10.0.6.2 >/dev/null 2>&1 &
ip netns exec D /usr/bin/ping -q -i 0.01 -s 60000 -c 100000 10.0.6.1 >/dev/null 2>&1 &
ip netns exec B /usr/bin/ping -q -i 0.01 -c 100000 10.0.5.1 >/dev/null 2>&1 &
sleep 2
check "rmmod softib under traffic" rmmod softib
check "no ib_device left" test -z "$(ib_devices)"
check "in-tree netdevs gone" wait_for 10 sh -c '! ip -n A link show ib0 >/dev/null 2>&1 && ! ip -n B link show ib1 >/dev/null 2>&1'
check "our netdevs gone" wait_for 10 sh -c '! ip -n C link show icm0 >/dev/null 2>&1 && ! ip -n D link show icm1 >/dev/null 2>&1'
check "ib_ipoib still loaded" module_loaded ib_ipoib
check "ib_ipoib_cm still loaded" module_loaded ib_ipoib_cm
kill %1 %2 %3 %4 2>/dev/null
check "rmmod ib_ipoib_cm afterwards" rmmod ib_ipoib_cm
check "rmmod ib_ipoib afterwards" rmmod ib_ipoib
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
