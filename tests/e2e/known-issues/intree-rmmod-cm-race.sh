#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# KNOWN ISSUE (in-tree ib_ipoib, Linux 6.1), not run by make test; run it by path:
#   scripts/vm-test --kernel stock tests/e2e/known-issues/intree-rmmod-cm-race.sh
# Seen 1 time in 5 runs: rmmod ib_ipoib while connected-mode TX connections exist gives
# "WARNING ... Destroy of kernel CQ shouldn't fail" in ipoib_transport_dev_cleanup, then
# rdma_restrack_clean's leak WARNING at device removal. ipoib_cm_destroy_tx only queues the
# TX QP's destruction on priv->wq (ipoib_cm.c:1320-1333); ipoib_ndo_uninit destroys the CQs
# (ipoib_ib_dev_cleanup -> ndo_uninit -> ipoib_transport_dev_cleanup) before it flushes that
# workqueue (destroy_workqueue, ipoib_main.c:1998-2005), so a pending reap leaves a QP on the
# CQ (usecnt) and ib_destroy_cq_user returns -EBUSY. softib's destroy_cq never fails.
# The datagram half is the gating scenario tests/e2e/softib-rmmod-ipoib.sh.
# Device removal (rmmod softib) goes through the same ipoib_ndo_uninit path: CI failed
# tests/e2e/softib-rmmod.sh once on df2d153 with exactly these two WARNINGs while the in-tree
# pair there ran connected mode; that scenario now runs connected mode on ours instead.
# rmmod ib_ipoib (the ULP, not the device) while iperf3 TCP runs over it, datagram mode on
# one pair of hosts and connected mode (SRQ) on the other: ipoib's netdevs go away, every
# UD/RC QP it owned is destroyed (only the GSI QPs stay), the in-flight connected-mode
# teardown does not report "RX drain timing out", softib stays usable and then unloads
# cleanly, and the kernel log stays clean.
# load: ib_core
# load: ib_cm
# load: softib hosts=4 time_scale=100
# load: ib_ipoib
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 10

wait_for 30 sh -c 'for i in 0 1 2 3; do test -e /sys/class/net/ib$i || exit 1; done'
echo connected > /sys/class/net/ib2/mode; echo connected > /sys/class/net/ib3/mode
ns_create A B C D
ns_move ib0 A; ns_move ib1 B; ns_move ib2 C; ns_move ib3 D
ns_addr A ib0 10.0.8.1/24; ns_addr B ib1 10.0.8.2/24
ns_addr C ib2 10.0.9.1/24; ns_addr D ib3 10.0.9.2/24
ip -n C link set ib2 mtu 65520; ip -n D link set ib3 mtu 65520
for p in "ib0 A" "ib1 B" "ib2 C" "ib3 D"; do set -- $p; wait_carrier $1 $2 60; done
check "datagram ping" ns_reach A 10.0.8.2 2
check "connected ping -s 60000" wait_for 30 ns_reach C 10.0.9.2 1 -s 60000
dmesg_mark rmmodipoib
ns_exec B iperf3 -s -D >/dev/null 2>&1; ns_exec D iperf3 -s -D >/dev/null 2>&1
sleep 1
ip netns exec A iperf3 -c 10.0.8.2 -t 60 -f m --forceflush >/tmp/dg.out 2>&1 &
ip netns exec C iperf3 -c 10.0.9.2 -t 60 -f m --forceflush >/tmp/cm.out 2>&1 &
rxb() { cat /sys/class/infiniband/$1/ports/1/hw_counters/rx_bytes; }
dg0=$(rxb softib1)
moving() { [ "$(rxb softib3)" -gt 20000000 ] && [ "$(rxb softib1)" -gt $((dg0 + 2000000)) ]; }
check "iperf3 is moving data (> 20 MB connected on softib3, > 2 MB datagram on softib1)" wait_for 30 moving
diag "$(rdma resource show qp | grep -E 'type (UD|RC)' | wc -l) UD/RC QPs before rmmod"
check "rmmod ib_ipoib under iperf3 traffic" rmmod ib_ipoib
check "ipoib netdevs gone" wait_for 10 sh -c 'test -z "$(/sbin/ip -all netns exec /sbin/ip -o link show type ipoib 2>/dev/null | grep -v "^netns")"'
check_fail "no UD or RC QP left (only GSI)" sh -c 'rdma resource show qp | grep -E "type (UD|RC)"'
check_output "softib devices still there and ACTIVE" 'state ACTIVE' rdma link show softib3/1
check_fail "no 'RX drain timing out'" dmesg_has 'RX drain timing out'
kill %1 %2 2>/dev/null; sleep 1
diag "datagram client:"; diag "$(cat /tmp/dg.out)"
diag "connected client:"; diag "$(cat /tmp/cm.out)"
check "rmmod softib afterwards" rmmod softib
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
