#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode, port events through softib's knobs: CLIENT_REREGISTER and SM
# change -> light flush (paths re-queried, groups rejoined, carrier kept); port down/up and
# LID change -> normal flush (carrier follows the broadcast rejoin); P_Key table change ->
# heavy flush that keeps the link when our P_Key did not move. Traffic works after each.
# A GID change (new port GUID) changes the link-layer address; traffic recovers.
# A P_Key child loses and regains carrier as its P_Key leaves and re-enters the table.
# Also: module parameter clamping (send/recv_queue_size).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm send_queue_size=100 recv_queue_size=300
# mem: 1024
# timeout: 240
# tier: full
. /e2e/lib.sh
plan 43

fault=/sys/kernel/debug/softib/softib0/fault
check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check "softib fault knob present" test -w $fault
check "queue sizes clamped with a log line" sh -c "dmesg | grep -q 'send_queue_size=100 adjusted to 128' && dmesg | grep -q 'recv_queue_size=300 adjusted to 512'"
check_output "ethtool -g shows the clamped rings" 'RX:[[:space:]]+512' ethtool -g ib0
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24
ip -n A addr add fd00::1/64 dev ib0 nodad
ip -n B addr add fd00::2/64 dev ib1 nodad
carriers() { wait_carrier ib0 A 60 && wait_carrier ib1 B 60; }
check "carrier on both" carriers
check "ping before events" ns_reach A 10.0.0.2 3

stat() { ctr A ib0 "$1"; }
stat_is() { [ "$(stat "$1")" = "$2" ]; }
# positive control for the check after the light flush: the first join logs this line
check "control: the broadcast join logged 'carrier on'" dmesg_has 'carrier on'
dmesg_mark light
echo "reregister 1" > $fault
check "CLIENT_REREGISTER: one light flush" wait_for 20 stat_is flush_light 1
check "ping after reregister" ns_reach A 10.0.0.2 3
check_rc "light flush kept the carrier (no new 'carrier on')" 1 dmesg_has 'carrier on'
echo "event 1 sm_change" > $fault
check "SM change: a second light flush" wait_for 20 stat_is flush_light 2
check "no normal flush so far" stat_is flush_normal 0

echo "port_down 1" > $fault
check "carrier off while the port is down" wait_for 20 sh -c 'test "$(/sbin/ip netns exec A cat /sys/class/net/ib0/carrier 2>/dev/null)" = 0'
echo "port_up 1" > $fault
check "carrier on after port up" wait_carrier ib0 A 60
check "port down+up: normal flushes" wait_for 20 stat_is flush_normal 2
check "ping and ping6 after port up" sh -c '/sbin/ip netns exec A /usr/bin/ping -c 3 -i 0.2 -W 2 10.0.0.2 && /sbin/ip netns exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd00::2'

echo "lid 1 0x40" > $fault
check "LID change: a normal flush" wait_for 20 stat_is flush_normal 3
check "carrier back after the LID change" wait_carrier ib0 A 60
echo "reregister 1" > /sys/kernel/debug/softib/softib1/fault	# the peer refreshes its path to us
check "ping A->B after the LID change" wait_for 20 ns_reach A 10.0.0.2 1
check "ping B->A after the LID change" wait_for 20 ns_reach B 10.0.0.1 1

dmesg_mark heavy
echo "pkey 1 2 0x8005" > $fault
check "P_Key table change: a heavy flush" wait_for 20 stat_is flush_heavy 1
check "... that keeps the link (our P_Key still at index 0)" wait_dmesg 10 'P_Key table changed, 0xffff still at index 0'
check "no extra normal flush" stat_is flush_normal 3
check "ping after the P_Key change" ns_reach A 10.0.0.2 3

# A P_Key child follows its own table entry through heavy flushes.
echo "pkey 1 2 0x8005" > /sys/kernel/debug/softib/softib1/fault
ns_exec A sh -c 'echo 0x8005 > /sys/class/net/ib0/create_child'
ns_exec B sh -c 'echo 0x8005 > /sys/class/net/ib1/create_child'
ns_addr A ib0.8005 10.0.5.1/24 && ns_addr B ib1.8005 10.0.5.2/24
kids() { has_carrier ib0.8005 A && has_carrier ib1.8005 B; }
check "children 0x8005 get carrier" wait_for 60 kids
check "ping over the 0x8005 children" wait_for 20 ns_reach A 10.0.5.2 1
echo "pkey 1 2 0" > $fault
no_kid() { ! has_carrier ib0.8005 A; }
check "P_Key 0x8005 removed: the child loses carrier" wait_for 20 no_kid
check "... and the parent keeps it" has_carrier ib0 A
check "ping over the parent still works" ns_reach A 10.0.0.2 2
echo "pkey 1 2 0x8005" > $fault
check "P_Key back: the child gets carrier again" wait_for 60 kids
check "ping over the children again" wait_for 20 ns_reach A 10.0.5.2 1
# The SM moves 0x8005 to index 3 and puts another key at 2: the child's QP still uses index 2,
# so it must report carrier off rather than send on the wrong partition.
echo "pkey 1 3 0x8005" > $fault
echo "pkey 1 2 0x8006" > $fault
check "P_Key moved to another index: the child reports carrier off" wait_for 20 no_kid
check "... and says so in one log line" wait_dmesg 10 'P_Key 0x8005 moved from index 2 to 3: carrier off'

# The SM changes the P_Key at index 0 on both ports (0xffff moves to index 1, where ib_sa
# still finds it): the parents follow, as in-tree, with a new broadcast group.
for f in $fault /sys/kernel/debug/softib/softib1/fault; do echo "pkey 1 1 0xffff" > $f; echo "pkey 1 0 0x8007" > $f; done
bcast_8007() { ns_exec A cat /sys/class/net/ib0/broadcast | grep -q '^00:ff:ff:ff:ff:12:40:1b:80:07:'; }
check "index-0 P_Key change: ib0's broadcast address carries 0x8007" wait_for 20 bcast_8007
check_output "sysfs pkey reads 0x8007" '^0x8007$' ns_exec A cat /sys/class/net/ib0/pkey
check "carrier back on the new partition" wait_carrier ib0 A 60
check "ping over the new partition" wait_for 20 ns_reach A 10.0.0.2 1
: the port GID is half of the link-layer address, which follows.
addr_is_new() { ns_exec A cat /sys/class/net/ib0/address | grep -q ':02:c9:03:00:00:be:ef$'; }
# 6.1's ib_core updates its GID cache on GID_CHANGE but passes the event on to clients only
# for RoCE (cache.c: ib_cache_event_task); the next flush (here a re-registration) sees it.
echo "guid 1 0x0002c9030000beef" > $fault
echo "reregister 1" > $fault
check "GID change: ib0's address follows the new GUID" wait_for 20 addr_is_new
check "gid_changes counted" stat_is gid_changes 1
ip -n B neigh flush dev ib1
check "ping A->B after the GID change" wait_for 20 ns_reach A 10.0.0.2 1
check "ping B->A after the GID change" wait_for 20 ns_reach B 10.0.0.1 1
check_fail "softib refuses GUID 0" 'Invalid argument' sh -c "echo 'guid 1 0' > $fault"
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S ib0 | grep -v ': 0$')"
diag "$(dmesg | grep -i -E 'ib_ipoib_cm' | tail -n 12)"
ns_delete_all
exit $(tap_status)
