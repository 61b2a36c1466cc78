#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode, IPv4 multicast beyond the broadcast group (RFC 4391 §4 mapping,
# §10 send-only members): ours on softib0/1 (icm0 in A, icm1 in B), the in-tree ib_ipoib on
# softib2 (ib2 in C; its netdevs on softib0/1 stay down), one IP subnet. Groups are joined
# with `ip addr add G/32 autojoin` (the kernel's own IGMP membership, so the netdev's
# multicast list changes as for a socket join) and pinged (replies come from the member's
# unicast address). autojoin makes the group one of the host's own addresses, so a member
# pings it with its unicast source address (-I; without, connect() fails with EINVAL).
#   - ours->ours to a group only B joined: A becomes a send-only member (debugfs mcast
#     "sendonly", no attach; the SA has A's port with JoinState 0x8), B answers;
#   - A joins the group itself: the send-only membership is upgraded to a full one
#     (attached, one entry; the SA ends with JoinState 0x1: the send-only state was left),
#     its own looped-back copies are dropped and counted (rx_drop_self); A leaves: the group
#     is gone from debugfs and A's port from the SA's group;
#   - ours<->in-tree both ways;
#   - our join failing while softib drops every MCMemberRecord request of host A: counted
#     (mcast_join_errors), state failed, packets queued on it dropped when the join fails
#     (tx_drop_mcast_failed) or when its queue is full (tx_drop_mcast_queue_full); recovery
#     by the back-off once the SA answers again;
#   - a send queue held by softib (delay_ud) under a UDP flood stops the netdev queue
#     (tx_queue_stopped) instead of overflowing the ring (tx_drop_ring_full stays 0).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1536
# timeout: 400
. /e2e/lib.sh
# IPv4 group membership needs CONFIG_IP_MULTICAST (/proc/net/igmp): Debian's kernel has it,
# the debug kernel's fragment does not yet (autojoin there: "Operation not supported")
[ -e /proc/net/igmp ] || skip_all "no CONFIG_IP_MULTICAST in this kernel (/proc/net/igmp missing)"
plan 47

fault=/sys/kernel/debug/softib/softib0/fault
sa=/sys/kernel/debug/softib/sa_groups
dbg=/sys/kernel/debug/ib_ipoib_cm
# the port GIDs (softib/README.md: GUID 0x0002c90300abc000 + (host << 8) + port)
gid_a=fe80:0000:0000:0000:0002:c903:00ab:c001
# mgid N: the MGID of 239.1.1.N on P_Key 0xffff (RFC 4391 §4: ff12:401b:<pkey>::<low 28 bits>)
mgid() { echo "ff12:401b:ffff:0000:0000:0000:0f01:01$(printf %02x "$1")"; }
# group_line DEV N: DEV's debugfs mcast line for 239.1.1.N (fails if there is none)
group_line() { grep "^mgid $(mgid "$2") " $dbg/$1/mcast; }
# group_count DEV N: how many entries DEV has for that group
group_count() { grep -c "^mgid $(mgid "$2") " $dbg/$1/mcast; }
# sa_state N GID: the JoinState the SA has for GID in 239.1.1.N's group (fails if not a member)
sa_state() {
    awk -v g="group $(mgid "$1")" -v m="member $2" '
        /^group / { in_g = (index($0, g " ") == 1) }
        in_g && index($0, "  " m " ") == 1 { print $NF; f = 1 }
        END { exit !f }' $sa
}
sa_state_is() { [ "$(sa_state "$1" "$2")" = "$3" ]; }
# src NS: the namespace's unicast address
src() { case $1 in A) echo 10.0.0.1 ;; B) echo 10.0.0.2 ;; C) echo 10.0.0.3 ;; esac; }
# mping NS GROUP [COUNT] [args]: ping a multicast group from NS's unicast address, without
# the local loopback copy (-L): every reply comes over the fabric
mping() {
    _ns=$1 _g=$2 _c=${3:-3}
    if [ $# -ge 3 ]; then shift 3; else shift 2; fi
    ip netns exec "$_ns" /usr/bin/ping -L -c "$_c" -i 0.2 -W 2 -I "$(src "$_ns")" "$@" "$_g"
}

check "icm0, icm1 (ours) and ib2 (in-tree) exist" wait_for 30 sh -c 'for d in icm0 icm1 ib2; do test -e /sys/class/net/$d || exit 1; done'
ip link set ib0 down 2>/dev/null
ip link set ib1 down 2>/dev/null
ns_trio icm0 icm1 ib2
for n in "A icm0" "B icm1" "C ib2"; do
    set -- $n
    ip -n $1 route add 224.0.0.0/4 dev $2
    ns_exec $1 sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts'
done
carriers() { wait_carrier icm0 A 60 && wait_carrier icm1 B 60 && wait_carrier ib2 C 60; }
check "carrier on all three" carriers
check "unicast ping A->B and A->C (ARP)" sh -c '/sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.2 -W 2 10.0.0.2 && /sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.2 -W 2 10.0.0.3'

# ---- 1. ours -> ours: A sends to a group only B joined: A is a send-only member
snap s1 A:icm0
check "B joins 239.1.1.1" ip -n B addr add 239.1.1.1/32 dev icm1 autojoin
check "B's group is joined and attached (full member)" wait_for 20 sh -c "grep -q '^mgid $(mgid 1) mlid 0x[0-9a-f]* joined full attached ' $dbg/icm1/mcast"
check_output "ping 239.1.1.1 from A: B answers" 'bytes from 10\.0\.0\.2:' mping A 239.1.1.1 3
check_output "A's entry: joined, send-only, not attached" "^mgid $(mgid 1) mlid 0x[0-9a-f]{4} joined sendonly queued 0\$" group_line icm0 1
check_output "the SA has A's port as a SendOnlyFullMember (JoinState 0x8)" '^0x8$' sa_state 1 $gid_a
check_delta "A's send-only join counted (mcast_joins)" s1 A:icm0 mcast_joins -ge 1
check_delta "no join error" s1 A:icm0 mcast_join_errors -eq 0
check_delta "A not attached: no copy of its own came back (rx_drop_self)" s1 A:icm0 rx_drop_self -eq 0

# ---- 2. A joins it too: send-only -> full member; its own copies come back and are dropped
snap s2 A:icm0
check "A joins 239.1.1.1" ip -n A addr add 239.1.1.1/32 dev icm0 autojoin
check "A's entry becomes a full, attached member" wait_for 20 sh -c "grep -q '^mgid $(mgid 1) mlid 0x[0-9a-f]* joined full attached ' $dbg/icm0/mcast"
check_output "... one entry for the group (the send-only one is gone)" '^1$' group_count icm0 1
check "the SA has A's port as a FullMember (JoinState 0x1)" wait_for 20 sa_state_is 1 $gid_a 0x1
check_delta "the send-only membership was left (mcast_leaves)" s2 A:icm0 mcast_leaves -ge 1
check_output "ping 239.1.1.1 from A: B still answers" 'bytes from 10\.0\.0\.2:' mping A 239.1.1.1 3
check_delta "A's own 3 echo requests came back and were dropped (rx_drop_self)" s2 A:icm0 rx_drop_self -ge 3

# ---- 3. A leaves
snap s3 A:icm0
check "A leaves 239.1.1.1" ip -n A addr del 239.1.1.1/32 dev icm0
# (the file must be readable: a grep on a missing file would "not find" the group too)
no_group() { [ -r $dbg/$1/mcast ] && [ "$(group_count "$1" "$2")" = 0 ]; }
check "A's entry is gone from debugfs" wait_for 20 no_group icm0 1
check_output "debugfs mcast still lists the broadcast group (the file is read)" 'joined broadcast attached' cat $dbg/icm0/mcast
check_delta "the leave was counted (mcast_leaves)" s3 A:icm0 mcast_leaves -ge 1
check_rc "the SA no longer has A's port in the group" 1 sa_state 1 $gid_a
check_output "... but still B's" '^0x1$' sa_state 1 fe80:0000:0000:0000:0002:c903:00ab:c101

# ---- 4. ours <-> in-tree
check "in-tree C joins 239.1.1.2" ip -n C addr add 239.1.1.2/32 dev ib2 autojoin
check "... and the SA has it" wait_for 20 sa_state_is 2 fe80:0000:0000:0000:0002:c903:00ab:c201 0x1
check_output "ping 239.1.1.2 from ours (A): the in-tree member answers" 'bytes from 10\.0\.0\.3:' mping A 239.1.1.2 3
check "A joins 239.1.1.3" ip -n A addr add 239.1.1.3/32 dev icm0 autojoin
check "... joined and attached" wait_for 20 sh -c "grep -q '^mgid $(mgid 3) mlid 0x[0-9a-f]* joined full attached ' $dbg/icm0/mcast"
check_output "ping 239.1.1.3 from the in-tree C: we answer" 'bytes from 10\.0\.0\.1:' mping C 239.1.1.3 3

# ---- 5. our join fails while the SA is unreachable, then recovers
snap s5 A:icm0
check "inject: drop every MCMemberRecord request of host A" sh -c "echo 'drop_sa mcmember 100000' > $fault"
check "A joins 239.1.1.4 (the join cannot complete)" ip -n A addr add 239.1.1.4/32 dev icm0 autojoin
check "the failed join is counted (mcast_join_errors)" wait_for 40 delta_ge s5 A:icm0 mcast_join_errors 1
check "debugfs shows the group failed (back-off)" wait_for 20 sh -c "grep -q '^mgid $(mgid 4) mlid 0x[0-9a-f]* failed full ' $dbg/icm0/mcast"
# 20 packets onto a group that is not joined: 4 (kPendingQueue) wait for the next attempt,
# the rest find the queue full
check_rc "ping 239.1.1.4 from A while the join fails: no reply" 1 mping A 239.1.1.4 20 -i 0.02 -W 1
check_delta "the packets beyond the group's queue were dropped (tx_drop_mcast_queue_full)" s5 A:icm0 tx_drop_mcast_queue_full -ge 1
check "the queued ones were dropped with the next failed attempt (tx_drop_mcast_failed)" wait_for 60 delta_ge s5 A:icm0 tx_drop_mcast_failed 1
check "the SA answers again (clear)" sh -c "echo clear > $fault"
check "the back-off retries and the join succeeds" wait_for 60 sh -c "grep -q '^mgid $(mgid 4) mlid 0x[0-9a-f]* joined full attached ' $dbg/icm0/mcast"
check_output "ping 239.1.1.4 from the in-tree C: we answer" 'bytes from 10\.0\.0\.1:' mping C 239.1.1.4 3

# ---- 6. a stalled send queue stops the netdev queue instead of overflowing the ring
# A UDP flood (a 2 MB socket buffer: more than the 128-slot ring can hold) runs; then softib
# holds A's next UD send for 1.5 s, and the QP stalls behind it.
check "iperf3 server in B" iperf3_server B 5201
echo 4194304 > /proc/sys/net/core/wmem_max; echo 4194304 > /proc/sys/net/core/rmem_max
/sbin/ip netns exec A iperf3 -u -b 200M -l 1000 -w 2M -t 8 -c 10.0.0.2 > /tmp/flood.out 2>&1 &
flood=$!
snap s6f ib:softib0
check "the UDP flood flows out of A" wait_for 20 delta_ge s6f ib:softib0 ud_tx_packets 200
snap s6 A:icm0
check "inject: softib holds A's next UD send for 1.5 s" sh -c "echo 'delay_ud 1 1500' > $fault"
check "the full ring stopped the netdev queue (tx_queue_stopped)" wait_for 20 delta_ge s6 A:icm0 tx_queue_stopped 1
wait $flood
diag "flood: $(grep -E 'sender|receiver' /tmp/flood.out | tr -s ' ')"
check_delta "... and no packet was dropped for a full ring (tx_drop_ring_full)" s6 A:icm0 tx_drop_ring_full -eq 0
check "ping A->B afterwards (the queue woke up)" wait_for 20 ns_reach A 10.0.0.2 1

check "kernel log clean" dmesg_clean
diag "$(cat $dbg/icm0/mcast)"
diag "$(cat $sa)"
diag "$(ns_exec A ethtool -S icm0 | grep -v ': 0$')"
ns_delete_all
exit $(tap_status)
