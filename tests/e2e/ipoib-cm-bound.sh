#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode ours <-> ours (softib SRQ), three hosts: one connection at its own send
# bound (its ring, min(send_queue_size, kRcSendRingMax) = 32 sends in flight) holds only its
# own peer's packets; another peer's queue goes out meanwhile (the interface bound is 4 rings'
# worth; docs/connected.md §3 "Peer isolation", §4). No RC bound stops the netdev queue: at a
# bound, the connection's or the interface's, the peer's packets wait on its own queue and
# the netdev queue runs on.
#   1. A's connection to C is held connecting (softib2 holds C's REP 4.5 s) with C's pings
#      queued on A for it. 4.5 s: the margin for steps 2-3 on a loaded host (up to 3 s may
#      go to C's pings queueing before B's flood starts) while A's REQ, resent every
#      ~1152 ms with 4 retries, times out only at ~5.8 s without a REP.
#   2. B stops taking A's sends (softib `rnr QPN forever` on B's end): A's pings to B (40
#      at once, then one every 20 ms) fill that connection's bound: 32 in flight, the rest
#      on B's own queue (debugfs rc_send conn_waiting=1, rc_tx_conn_held), dropped beyond it.
#   3. C's REP arrives: its StartSending sends C's queue at once, and every ping of C is
#      answered, in order, while B still stalls; C's queue never waited for the interface
#      bound (cm_tx_flush_held) and the netdev queue never timed out (tx_timeouts).
#   4. B's stall is lifted within the send watchdog's 10 s: B's own completions drain its
#      queue and nothing stays in flight.
# A's pings are ICMP datagram ("ping") sockets (ping_group_range): the kernel hands each its
# own replies. Over raw sockets (the default for root), iputils installs its ident filter only
# after its first foreign reply, so C's ping socket took B's flood replies too.
# With the interface bound equal to one connection's ring (rc_iface_bound returning send_ring),
# B's stall holds the whole interface bound: C's queue waits on C's own queue for it
# (cm_tx_flush_held moves) and C's pings wait for B's stall; the netdev queue
# still runs (it stops only for the UD ring), so tx_timeouts stays 0 there too.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3
# load: ib_ipoib_cm ports=softib0:1,softib1:1,softib2:1 ifname=icm%d
# mem: 1024
# timeout: 240
# kernels: stock
. /e2e/lib.sh
plan 24

dmesg_mark cmbound
check "icm0..icm2 exist" wait_for 30 sh -c 'for i in 0 1 2; do test -e /sys/class/net/icm$i || exit 1; done'
ns_create A B C
i=0
for n in A B C; do
    eval "addr_$n=\$(cat /sys/class/net/icm$i/address)"
    ns_move icm$i $n
    i=$((i + 1))
    ns_addr $n icm$((i - 1)) 10.0.9.$i/24
done
all_up() { has_carrier icm0 A && has_carrier icm1 B && has_carrier icm2 C; }
check "carrier on all three" wait_for 60 all_up
neighs() {
    /sbin/ip -n A neigh replace 10.0.9.2 lladdr "$addr_B" nud permanent dev icm0 &&
    /sbin/ip -n A neigh replace 10.0.9.3 lladdr "$addr_C" nud permanent dev icm0 &&
    /sbin/ip -n B neigh replace 10.0.9.1 lladdr "$addr_A" nud permanent dev icm1 &&
    /sbin/ip -n C neigh replace 10.0.9.1 lladdr "$addr_A" nud permanent dev icm2
}
check "static neighbours A <-> B, C" neighs
check "warm-up pings A -> B, C in datagram mode (paths)" sh -c '/sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.2 -W 5 10.0.9.2 && /sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.2 -W 5 10.0.9.3'
check "all three -> connected mode" sh -c "/sbin/ip netns exec A sh -c 'echo connected > /sys/class/net/icm0/mode' && /sbin/ip netns exec B sh -c 'echo connected > /sys/class/net/icm1/mode' && /sbin/ip netns exec C sh -c 'echo connected > /sys/class/net/icm2/mode'"
check "A pings B (a connection)" ns_exec A /usr/bin/ping -c 2 -i 0.2 -W 5 10.0.9.2
check "A: one connection (to B), established" wait_for 10 cm_has icm0 1 ' state=established '
qb=$(cm_field icm1 . qpn)
rcs=$(cm_file icm0 rc_send)
diag "rc_send: $(cat "$rcs")"
# pfifo: fq_codel (the default) drops what waits in it longer than its target, and what waits
# for the stopped queue here is the test's subject
check "A: root qdisc pfifo" ns_exec A tc qdisc replace dev icm0 root pfifo limit 1000
# ping sockets for root in A (see the header): each ping gets only its own replies
check "A: ICMP datagram sockets for root (ping_group_range 0 0)" ns_exec A sh -c 'echo "0 0" > /proc/sys/net/ipv4/ping_group_range && grep -qx "0.0" /proc/sys/net/ipv4/ping_group_range'
snap m A:icm0
check "softib2: hold C's next REPs 4.5 s" sh -c 'echo "delay_cm rep 10 4500" > /sys/kernel/debug/softib/softib2/fault'
ns_exec A /usr/bin/ping -c 8 -i 0.05 -w 40 10.0.9.3 > /tmp/pc.out 2>&1 &	# -w: the time bound (echoes 1..8 checked below)
pc=$!
# 5: a ping socket's minimum send buffer (4608 bytes) holds 6 of these 768-byte skbs, and
# ping waits while they are queued (a raw socket's held 12)
check "C's pings wait on A for a connecting connection" wait_for 3 delta_ge m A:icm0 cm_tx_queued 5
check "rnr $qb forever on softib1 (B stops taking A's sends)" sh -c "echo 'rnr $qb forever' > /sys/kernel/debug/softib/softib1/fault"
ns_exec A /usr/bin/ping -l 40 -c 200 -i 0.02 -W 1 -s 1000 10.0.9.2 > /tmp/pb.out 2>&1 &
pb=$!
# B's connection, sampled until it is at its own bound with B's queue waiting behind it (or 7 s:
# C's REP is due within 4.5 s; the send watchdog tears B's connection down after 10 s without
# a completion).
cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }
max=0 t0=$(cs)
while [ $(($(cs) - t0)) -lt 700 ]; do
    n=$(sed -n 's/^inflight=\([0-9]*\) .*/\1/p' "$rcs")
    [ "${n:-0}" -gt "$max" ] && max=$n
    [ "$max" -ge 32 ] && grep -Eq '^conn_limit=32 .*conn_waiting=1( |$)' "$rcs" && break
    sleep 0.1
done
cp "$rcs" /tmp/rcs.at
diag "sampled $(($(cs) - t0))0 ms; max inflight $max; $(tr '\n' ' ' < /tmp/rcs.at)"
check "B's connection at its own bound: $max of 32 in flight" test "$max" -ge 32
check "B's packets wait on B's own queue (rc_send conn_waiting=1)" grep -Eq '^conn_limit=32 .*conn_waiting=1( |$)' /tmp/rcs.at
check_delta "... counted for B's connection (rc_tx_conn_held)" m A:icm0 rc_tx_conn_held -ge 1
wait $pc
prc=$?
diag "C: $(grep -E 'icmp_seq|transmitted' /tmp/pc.out | sed 's/64 bytes from [0-9.]*: //' | tr '\n' ' ') ($(grep -c 'sendmsg' /tmp/pc.out) sendmsg errors)"
check "every ping of C answered while B stalls (echoes 1..8, exit $prc)" ping_seqs_all /tmp/pc.out 8
check "... in order" sh -c "grep -o 'icmp_seq=[0-9]*' /tmp/pc.out | cut -d= -f2 | head -n 8 | tr '\n' ' ' | grep -qx '1 2 3 4 5 6 7 8 '"
check "... before the send watchdog could have freed B's bound (within 9 s of B's flood)" test $(($(cs) - t0)) -lt 900
check_delta "C's queue never waited for the interface bound (cm_tx_flush_held)" m A:icm0 cm_tx_flush_held -eq 0
check_delta "A's netdev queue never timed out (tx_timeouts)" m A:icm0 tx_timeouts -eq 0
check "rnr $qb 0 (the stall lifted)" sh -c "echo 'rnr $qb 0' > /sys/kernel/debug/softib/softib1/fault"
wait $pb
diag "B: $(tail -n 2 /tmp/pb.out | tr '\n' ' ')"
check "B's queue drained by its own completions: nothing in flight, no peer waiting" \
    wait_for 20 sh -c "grep -q '^inflight=0 ' '$rcs' && grep -Eq 'backlog=0 conn_waiting=0( |$)' '$rcs'"
check_delta "no send watchdog teardown" m A:icm0 cm_watchdog_teardowns -eq 0
cm_ctrs A icm0
cm_ctrs C icm2
cm_show icm2
# where a reply that A's driver received could still be lost: the stacks' ICMP/IP errors
for n in A C; do diag "$n snmp: $(ns_exec $n cat /proc/net/snmp | awk '/^(Ip|Icmp):/' | tr '\n' ' ')"; done
diag "C's ping, whole: $(tr '\n' ' ' < /tmp/pc.out)"
diag "rc_send after: $(cat "$rcs")"
run sh -c 'dmesg | grep -E "transmit timeout|NETDEV WATCHDOG" | tail -n 4'
check "kernel log clean" dmesg_clean
