#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, ours <-> ours (softib SRQ): packets queued for a connection that is still
# connecting when the admin mode goes to datagram. B is in datagram mode (it
# still accepts A's REQ, docs/protocol.md §2.12) and its REP is held 6 s on the wire (softib
# delay_cm), so A's connection stays connecting with a ping queued; A switches to datagram
# while it does: the connection closes without StartSending, and the queued ping must go out over
# UD and be answered, not wait forever in the neighbour's queue. Static neighbours both ways.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 240
# kernels: stock debug
. /e2e/lib.sh
plan 15

ca=/sys/kernel/debug/ib_ipoib_cm/icm0/connections
dmesg_mark modepending
cm_pair_b_datagram 10.0.5
check "... its connection closed" wait_for 10 sh -c "! grep -q 'dir=active .* state=established ' $ca"
check "softib1: hold B's next REPs 6 s (the REP ib_cm resends for A's resent REQ too)" sh -c 'echo "delay_cm rep 10 6000" > /sys/kernel/debug/softib/softib1/fault'
snap m A:icm0
ns_exec A /usr/bin/ping -c 1 -W 12 10.0.5.2 > /tmp/ping.out 2>&1 &
ppid=$!
check "A's ping waits for a connecting connection" wait_for 4 sh -c "grep -q 'dir=active .* state=connecting ' $ca"
check_delta "... queued in the neighbour's queue" m A:icm0 cm_tx_queued -ge 1
check "A -> datagram while connecting" ns_exec A sh -c 'echo datagram > /sys/class/net/icm0/mode'
wait $ppid
prc=$?
diag "$(cat /tmp/ping.out | tr '\n' ' ')"
check "the queued ping was sent over UD and answered" test $prc = 0
diag "$(ns_exec A ethtool -S icm0 | grep -E '^ +cm_' | grep -v ': 0$' | tr '\n' ' ')"
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
