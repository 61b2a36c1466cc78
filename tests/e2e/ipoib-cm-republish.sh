#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, ours <-> ours (softib SRQ), the send-path hand-over (docs/connected.md §10): a peer with two established
# connections. A connects to B (A's active Ac carries both directions). B's DREQ is then lost
# (softib `drop_cm dreq 1` on B) while B goes down and up, so A still holds Ac, whose remote QP
# is gone. B pings A: B connects anew from a new QP and A accepts it (A's passive Ap, bidir),
# which finds the send slot taken by Ac and stays unpublished. A's replies over Ac fail
# (transport retries exceeded) and Ac is torn down: the table must then publish Ap (it may
# send, its StartSending ran) and send A's queued packets over it. If nobody were published,
# after the 1 s UD back-off xmit would queue every packet to B behind Ap for ever
# (cm_tx_drop_queue_full once 64 were queued) while B's packets still reached A.
# Asserted: every one of 40 A->B pings over 20 s answered, no queue-full drop, the packets
# left over Ap (its tx= grows), and one connection per side at the end.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 300
# kernels: stock debug
. /e2e/lib.sh
plan 17

ca=/sys/kernel/debug/ib_ipoib_cm/icm0/connections
cb=/sys/kernel/debug/ib_ipoib_cm/icm1/connections
dmesg_mark republish
wait_for 30 test -e /sys/class/net/icm0
addr_a=$(cat /sys/class/net/icm0/address)
cm_ours_pair 10.0.7
check "warm-up ping A->B (path, A's active connection)" wait_for 30 ns_reach A 10.0.7.2 1
check "A: one established active connection" sh -c "[ \$(wc -l < $ca) -eq 1 ] && grep -q '^dir=active .* state=established .* bidir=1 ' $ca"
diag "A before: $(cat $ca | tr '\n' ' ')"
check "softib1: drop B's next DREQ" sh -c 'echo "drop_cm dreq 1" > /sys/kernel/debug/softib/softib1/fault'
check "B down (its DREQ is lost)" ns_ip B link set icm1 down
sleep 1
check "B up" ns_ip B link set icm1 up
check "carrier on B" wait_for 60 has_carrier icm1 B
# a static entry: B's first packet to A is the ping whose REQ this is about (no ARP exchange
# first; A's ARP reply would go over UD, not over the stale Ac)
check "static neighbour for A on B" ns_ip B neigh replace 10.0.7.1 lladdr "$addr_a" nud permanent dev icm1
# B's REQ comes from a new QP: A accepts it next to its stale active connection
two_on_a() { grep -q '^dir=passive .* state=established ' $ca; }
# wait_for counts 0.2 s per try and a lost ping takes 2 s: 6 -> at most 30 pings, 66 s
check "B pings A (B connects anew, A accepts; A's first answer is lost on the stale Ac)" wait_for 6 ns_reach B 10.0.7.1 1
check "A: a passive established connection next to the stale active one" wait_for 10 two_on_a
diag "A after B's ping: $(cat $ca | tr '\n' ' ')"
diag "B after B's ping: $(cat $cb | tr '\n' ' ')"
ptx() { sed -n 's/^dir=passive .* state=established .* tx=\([0-9]*\) .*/\1/p' $ca | head -n 1; }
tx0=$(ptx)
snap r A:icm0
ns_exec A /usr/bin/ping -c 40 -i 0.5 -W 2 10.0.7.2 > /tmp/republish.ping 2>&1
diag "$(tail -n 2 /tmp/republish.ping | tr '\n' ' ')"
check_output "every A->B ping answered (40/40 over 20 s)" ' 40 received, 0% packet loss' cat /tmp/republish.ping
check_delta "no packet to B dropped at a full queue" r A:icm0 cm_tx_drop_queue_full -eq 0
tx1=$(ptx)
diag "A's passive connection: tx=$tx0 before, tx=${tx1:-none} after; A: $(cat $ca | tr '\n' ' ')"
check "A's pings left over the passive connection (tx +40 or more)" sh -c "[ -n '$tx0' ] && [ -n '$tx1' ] && [ \$(( ${tx1:-0} - ${tx0:-0} )) -ge 40 ]"
diag "$(ns_exec A ethtool -S icm0 | grep -E '^ +(cm_|rc_)' | grep -v ': 0$' | tr '\n' ' ')"
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
