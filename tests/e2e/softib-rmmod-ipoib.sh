#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmmod ib_ipoib (the ULP, not the device) while iperf3 TCP runs over it in datagram mode:
# ipoib's netdevs go away, every UD QP it owned is destroyed (only the GSI QPs stay), softib
# stays usable and then unloads cleanly, and the kernel log stays clean. The same under
# connected-mode traffic hits an in-tree race (tests/e2e/known-issues/intree-rmmod-cm-race.sh).
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100
# load: ib_ipoib
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 10

wait_for 30 sh -c 'for i in 0 1; do test -e /sys/class/net/ib$i || exit 1; done'
ns_create A B
ns_move ib0 A; ns_move ib1 B
ns_addr A ib0 10.0.8.1/24; ns_addr B ib1 10.0.8.2/24
for p in "ib0 A" "ib1 B"; do set -- $p; wait_carrier $1 $2 60; done
check "datagram ping" ns_reach A 10.0.8.2 2
dmesg_mark rmmodipoib
iperf3_server B || bail "iperf3 server in B not listening"
ip netns exec A iperf3 -c 10.0.8.2 -t 60 -f m --forceflush >/tmp/dg.out 2>&1 &
rxb() { hwc "$1" rx_bytes; }
dg0=$(rxb softib1)
moving() { [ "$(rxb softib1)" -gt $((dg0 + 2000000)) ]; }
check "iperf3 is moving data (> 2 MB datagram on softib1)" wait_for 30 moving
diag "$(rdma resource show qp | grep -E 'type (UD|RC)' | wc -l) UD/RC QPs before rmmod"
check "control: rdma lists ipoib's UD QPs while it is loaded" sh -c 'rdma resource show qp | grep -E "type (UD|RC)"'
check "rmmod ib_ipoib under iperf3 traffic" rmmod ib_ipoib
check "ipoib netdevs gone" wait_for 10 sh -c 'test -z "$(/sbin/ip -all netns exec /sbin/ip -o link show type ipoib 2>/dev/null | grep -v "^netns")"'
check_output "rdma still lists the GSI QPs" 'type GSI' rdma resource show qp
check_rc "no UD or RC QP left (only GSI)" 1 sh -c 'rdma resource show qp | grep -E "type (UD|RC)"'
check_output "softib devices still there and ACTIVE" 'state ACTIVE' rdma link show softib1/1
kill %1 2>/dev/null; sleep 1
diag "datagram client:"; diag "$(cat /tmp/dg.out)"
check "rmmod softib afterwards" rmmod softib
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
