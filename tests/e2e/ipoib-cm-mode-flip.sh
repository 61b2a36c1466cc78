#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, ours <-> ours: admin mode flips on A racing the teardown of its connections.
# Each round B's end of the connection is forced into error (softib qp_err: flushes and
# LAST_WQE_REACHED, B tears down and sends its DREQ) while A, with pings in flight, switches to
# datagram and back to connected. A connection created for A after the switch to datagram (a
# Reconnect its teardown queued before it) is destroyed at once, never left idle as the peer's
# active connection; so once back in connected mode A connects to B again: one established
# connection each, none idle or draining, and 60000-byte pings (above the UD MTU: they need
# the RC path) are every one answered, both ways. Three rounds (each its own delay between the
# flips) and 10 pings each way on stock; on the debug kernel, where one flip takes seconds and
# the delays no longer pick the race's window, two rounds and 5 pings each way.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: core
. /e2e/lib.sh
rounds=$(by_kernel 3 2); npings=$(by_kernel 10 5)
plan $((13 + 3 * rounds))

F1=/sys/kernel/debug/softib/softib1/fault
dmesg_mark modeflip
cm_ours_pair 10.0.22
one_each() { cm_has icm0 1 ' state=established ' && cm_has icm1 1 ' state=established '; }
# The round's pings may all have gone before A is back in connected mode (a slow guest: the
# debug kernel's flips take seconds), and then nothing asks for a connection: each try sends
# one 60000-byte ping (RC only) before it looks.
ping_one_each() { ns_exec A /usr/bin/ping -c 1 -W 1 -s 60000 10.0.22.2 > /dev/null 2>&1; one_each; }
mode_a() { ip -n A link set icm0 type ipoib mode "$1"; }
check "warm-up ping A->B" wait_for 30 ns_reach A 10.0.22.2 1
for round in $(seq 1 "$rounds"); do
    check "round $round: one connection each, established" wait_for 30 ping_one_each
    qb=$(cm_field icm1 ' qpn=' qpn)
    ns_exec A /usr/bin/ping -c 30 -i 0.05 -W 1 -s 60000 10.0.22.2 > /dev/null 2>&1 &
    pp=$!
    sleep 0.3
    # B's QP into error, and A's mode flip right behind it (the DREQ and the flip race)
    echo "qp_err $qb" > $F1
    check "round $round: A -> datagram while B's end tears down" mode_a datagram
    sleep 0.$((round * 2))
    check "round $round: A -> connected" mode_a connected
    wait $pp
done
check "A's MTU is 65520 again" sh -c "/usr/sbin/ip -n A link show icm0 | grep -q ' mtu 65520 '"
check "traffic recovers: a reply A->B (60 s)" ping_within 60 A 10.0.22.2
check "one connection each, established" wait_for 30 ping_one_each
cm_show icm0 icm1
check "A: no connection left idle or draining" file_lacks "$(cm_file icm0 connections)" 1 ' state=(idle|draining) ' ' qpn='
check "B: no connection left idle or draining" file_lacks "$(cm_file icm1 connections)" 1 ' state=(idle|draining) ' ' qpn='
check "$npings pings of 60000 bytes A->B, every one answered" ns_ping_all A 10.0.22.2 "$npings" -s 60000
check "$npings pings of 60000 bytes B->A, every one answered" ns_ping_all B 10.0.22.1 "$npings" -s 60000
cm_ctrs A icm0; cm_ctrs B icm1
check "kernel log clean" dmesg_clean
