#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode, the neighbour table: a ping creates one neighbour per peer
# address (debugfs neigh, ethtool -S neigh_created), the GC reaps it after 2 x the ARP
# table's gc_interval (set to 3 s through /proc/sys/net/ipv4/neigh/default/gc_interval, as
# the in-tree driver follows it) and then its unused path, ping works again; a port event
# flushes neighbours; a PathRecord outage (softib drop_sa path) puts the path into back-off:
# packets are dropped and counted (tx_drop_path_backoff) without a query per packet, and
# traffic recovers by itself once the SA answers.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 240
# tier: core
. /e2e/lib.sh
plan 32

fault=/sys/kernel/debug/softib/softib0/fault
dbg=/sys/kernel/debug/ib_ipoib_cm

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
# The GC reads gc_interval at each run; set it before the interfaces open (the first run
# is armed at open with the value of that moment).
echo 3 > /proc/sys/net/ipv4/neigh/default/gc_interval
check_output "gc_interval 3 s" '^3$' cat /proc/sys/net/ipv4/neigh/default/gc_interval
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24
carriers() { wait_carrier ib0 A 60 && wait_carrier ib1 B 60; }
check "carrier on both" carriers
addr_a=$(ns_exec A cat /sys/class/net/ib0/address)
addr_b=$(ns_exec B cat /sys/class/net/ib1/address)
diag "ib0 $addr_a, ib1 $addr_b"
# Static ARP entries: no ARP probe refreshes a neighbour behind the test's back.
check "static ARP entries" sh -c "/sbin/ip -n A neigh replace 10.0.0.2 lladdr $addr_b nud permanent dev ib0 && /sbin/ip -n B neigh replace 10.0.0.1 lladdr $addr_a nud permanent dev ib1"

# ---- 1. a neighbour per destination address, reaped when idle, then its path
# 50 pings 0.2 s apart: 10 s of use, more than the 6 s staleness plus the 3 s GC period.
check "ping A->B for 10 s" ns_reach A 10.0.0.2 50
# One snapshot right after the ping (a loaded debug VM can take seconds per check; the GC
# runs on its own clock), then the checks read the snapshot.
snap=/tmp/snap; mkdir -p $snap
ns_exec A ethtool -S ib0 > $snap/stats_a; cat $dbg/ib0/neigh > $snap/neigh0; cat $dbg/ib1/neigh > $snap/neigh1
cat $dbg/ib0/paths > $snap/paths0
check_output "a neighbour in use is kept: neigh_created 1, neigh_reaped 0" '^1 0 $' \
	sh -c "sed -n 's/^ *neigh_created: //p;s/^ *neigh_reaped: //p' $snap/stats_a | tr '\n' ' '"
check_output "debugfs neigh on ib0 lists B's address with a resolved path" \
	"addr $addr_b qpn 0x[0-9a-f]{6} gid fe80:.* path resolved dlid 0x[0-9a-f]{4}" cat $snap/neigh0
check_output "debugfs neigh on ib1 lists A's address" "addr $addr_a .* path resolved" cat $snap/neigh1
check_output "debugfs neigh shows gc_interval 3000 ms" '^# 1 neighbours, gc_interval 3000 ms' cat $snap/neigh0
check_output "paths: B's GID resolved, held by the neighbour (refs 2)" 'gid fe80:.* resolved queued 0 refs 2 ' cat $snap/paths0
check "A's neighbour reaped after 2 x gc_interval idle" wait_for 20 ctr_ge A ib0 neigh_reaped 1
check "B's neighbour reaped too" wait_for 20 ctr_ge B ib1 neigh_reaped 1
check_output "debugfs neigh on ib0 is empty" '^# 0 neighbours' cat $dbg/ib0/neigh
check "the unused path is reaped next" wait_for 20 ctr_ge A ib0 path_reaped 1
check_rc "debugfs paths on ib0 is empty" 1 grep -q gid $dbg/ib0/paths
check "ping A->B again" ns_reach A 10.0.0.2 3
check_output "a new neighbour (neigh_created 2)" '^2$' ctr A ib0 neigh_created
check_output "a new path query (path_queries 2)" '^2$' ctr A ib0 path_queries

# ---- 2. a port event flushes neighbours and paths
# The event right after a ping, while the neighbour is fresh (the GC would take it 6 s later).
check "ping, then CLIENT_REREGISTER at once" sh -c "/sbin/ip netns exec A /usr/bin/ping -c 3 -i 0.2 -W 2 10.0.0.2 >/dev/null && echo 'reregister 1' > $fault"
check "the event flushes the neighbour (neigh_flushed)" wait_for 20 ctr_ge A ib0 neigh_flushed 1
check "carrier back after the rejoin" wait_carrier ib0 A 60
check_rc "no path left after the flush" 1 grep -q gid $dbg/ib0/paths

# ---- 3. PathRecord outage: back-off, counted drops, recovery
q0=$(ctr A ib0 path_queries); e0=$(ctr A ib0 path_query_errors); b0=$(ctr A ib0 tx_drop_path_backoff)
snap outage A:ib0
# ib_sa sends a PathRecord query up to 11 times (timeout/10 each): 22 drops fail two
# queries, the first back-off is 1 s, the second 2 s, the third query succeeds.
check "inject: drop the next 22 PathRecord requests of host A" sh -c "echo 'drop_sa path 22' > $fault"
# -c 5 -w 13: sends every 0.2 s until 5 replies arrive, for at most 13 s (as long as 60 sends
# and the last one's 1 s took); it exits 0 only with those 5 replies (iputils ping with both a
# count and a deadline). The first reply came ~6 s in on stock, so the rest is not waited.
ns_exec A /usr/bin/ping -c 5 -w 13 -i 0.2 -W 1 10.0.0.2 > /tmp/outage.txt 2>&1 &
pingpid=$!
# backoff_seen MS: the path to B is in back-off, MS ms this time
backoff_seen() { grep -Eq "backoff queued 0 refs [0-9]+ idle [0-9]+ ms retry in [0-9]+ ms \(back-off $1 ms\)" $dbg/ib0/paths; }
check "debugfs paths shows the first back-off (1000 ms)" wait_for 15 backoff_seen 1000
check "then the doubled one (2000 ms)" wait_for 15 backoff_seen 2000
wait $pingpid
ping_rc=$?
run cat /tmp/outage.txt
check "ping through the outage got replies once the SA answered" test $ping_rc = 0
check "back-off drops counted (tx_drop_path_backoff)" ctr_ge A ib0 tx_drop_path_backoff $((b0 + 1))
check "failed queries counted (path_query_errors)" ctr_ge A ib0 path_query_errors $((e0 + 1))
# the packets queued behind a query that failed are dropped with it, and counted
check_delta "packets queued on the failed query dropped (tx_drop_path_failed)" outage A:ib0 tx_drop_path_failed -ge 1
q1=$(ctr A ib0 path_queries); e1=$(ctr A ib0 path_query_errors)
diag "path_queries $q0 -> $q1, path_query_errors $e0 -> $e1, backoff drops $b0 -> $(ctr A ib0 tx_drop_path_backoff); fault left: $(cat $fault)"
check "one query per failure plus the successful one (no query per packet)" test $((q1 - q0)) -eq $((e1 - e0 + 1))
check "ping after recovery" ns_reach A 10.0.0.2 3
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S ib0 | grep -v ': 0$')"
diag "$(ns_exec B ethtool -S ib1 | grep -v ': 0$')"
diag "$(cat $dbg/ib0/paths; cat $dbg/ib0/neigh)"
ns_delete_all
exit $(tap_status)
