#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, ours <-> ours (softib SRQ): packets waiting for a connection when the
# interface goes down are dropped, and counted: stop_end frees every peer's pending queue,
# counted cm_tx_drop_teardown and summed into tx_dropped. B is in datagram mode (it still
# accepts A's REQ, docs/protocol.md §2.12) and its REP is held 6 s on the wire (softib delay_cm), so A's connection
# stays connecting with 3 pings queued; A's interface goes down meanwhile. Then the interface
# comes back and pings get through again (over a new connection, after the held REP).
# The other half of R6's drops, the sends of a connection ForceDestroy frees at teardown, are
# counted the same way, but the counters go with the interface (they are logged instead).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 240
# kernels: stock
. /e2e/lib.sh
plan 17

ca=/sys/kernel/debug/ib_ipoib_cm/icm0/connections
txd() { ns_exec A cat /sys/class/net/icm0/statistics/tx_dropped; }
dmesg_mark stoppending
cm_pair_b_datagram 10.0.7
check "softib1: hold B's next REPs 6 s" sh -c 'echo "delay_cm rep 10 6000" > /sys/kernel/debug/softib/softib1/fault'
snap m A:icm0
tx0=$(txd)
ns_exec A /usr/bin/ping -c 3 -i 0.2 -W 1 10.0.7.2 > /tmp/ping.out 2>&1
check "A's pings wait for a connecting connection" sh -c "grep -q 'dir=active .* state=connecting ' $ca"
check_delta "... 3 queued in the peer's queue" m A:icm0 cm_tx_queued -ge 3
check "A's interface down while connecting" ns_ip A link set icm0 down
check_delta "the queued packets are counted dropped" m A:icm0 cm_tx_drop_teardown -ge 3
tx1=$(txd)
diag "statistics/tx_dropped +$((tx1 - tx0))"
check "... and in statistics/tx_dropped" test $((tx1 - tx0)) -ge 3
check "A's interface up again" ns_ip A link set icm0 up
check "pings get through again" wait_for 40 ns_reach A 10.0.7.2 1
diag "$(ns_exec A ethtool -S icm0 | grep -E '^ +cm_' | grep -v ': 0$' | tr '\n' ' ')"
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
