#!/bin/sh
# Connected mode, a flood of REQs with distinct identities that never answer our REP (docs/
# security.md "What a node on the partition can do"). softib srq=0, max_nonsrq_conn_qp=32: the
# connection limit is 32 per interface, so the pool of unanswered passive connections is 16
# (cm_req_pool's 64, at most half the limit). tests/kmod/ipoib_cmreq_test on softib0 floods
# ours on softib1 (B, icm0) with 400 REQs, one every 25 ms, each naming its own RC and UD QPN
# and Linux's CM timers (so ib_cm alone would keep each for 65 s of REP retries);
# ours on softib2 (C, icm1) and softib3 (D, icm2) are the real peers.
# - B's connection to C, established before the flood, keeps carrying 60000-byte pings, every
#   one answered, during the flood and after it.
# - During the flood B opens a new connection to D: the flood holds at most the pool, never the
#   connection limit, so every 60000-byte ping to D is answered too.
# - At no time does B hold more than 16 connections in accepting; REQs beyond are rejected with
#   No Resources (cm_req_pool_full); the memory the RC rings pin (ethtool rc_pinned_kib) stays
#   within what the pool and the real connections hold. Each REJ carries our private data.
# - debugfs cm_limits shows the pool's fill and capacity: full (16 of 16) during the flood,
#   never above, and 0 once the unanswered ones aged out.
# - Once the flood stops the unanswered ones age out within seconds (cm_accept_timeouts) and a
#   legitimate REQ is accepted; rmmod right after a second flood completes within 20 s.
# - A REQ whose P_Key is not the interface's (softib pkeys=0x8001, sent with 0x8001 to the
#   parent interface) is refused with REJ 28, counted cm_req_bad_pkey.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=4 srq=0 pkeys=0x8001
# load: ib_ipoib_cm ports=softib1:1,softib2:1,softib3:1 ifname=icm%d max_nonsrq_conn_qp=32
# load: ipoib_cmreq_test
# mem: 1536
# timeout: 420
# kernels: stock debug
# tier: long
. /e2e/lib.sh
plan 36

CTL=/sys/kernel/debug/ipoib_cmreq_test/ctl
PAR=/sys/module/ipoib_cmreq_test/parameters
POOL=16
MON=/tmp/flood.mon
DONE=/tmp/flood.done
dmesg_mark reqflood
check "icm0..icm2 exist (ours on softib1..3)" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1 && test -e /sys/class/net/icm2'
check "all -> connected mode" sh -c 'for i in 0 1 2; do echo connected > /sys/class/net/icm$i/mode || exit 1; done'
addr_c=$(cat /sys/class/net/icm1/address); addr_d=$(cat /sys/class/net/icm2/address)
blid=$(printf '%d' "$(cat /sys/class/infiniband/softib1/ports/1/lid)")
bgid=$(tr -d ':' < /sys/class/infiniband/softib1/ports/1/gids/0)
bqpn=$(cut -d: -f2-4 /sys/class/net/icm0/address | tr -d ':')
sid=$(printf '%x' $((0x1000000000000000 | 0x$bqpn)))
ns_create B C D
ns_move icm0 B && ns_move icm1 C && ns_move icm2 D
ns_addr B icm0 10.0.11.2/24 && ns_addr C icm1 10.0.11.3/24 && ns_addr D icm2 10.0.11.4/24
all_up() { has_carrier icm0 B && has_carrier icm1 C && has_carrier icm2 D; }
check "carrier on all three" wait_for 60 all_up
check "MTU 65520 on all three" sh -c '/sbin/ip -n B link set icm0 mtu 65520 && /sbin/ip -n C link set icm1 mtu 65520 && /sbin/ip -n D link set icm2 mtu 65520'
check "static neighbours C and D on B" sh -c "/sbin/ip -n B neigh replace 10.0.11.3 lladdr $addr_c nud permanent dev icm0 &&
    /sbin/ip -n B neigh replace 10.0.11.4 lladdr $addr_d nud permanent dev icm0"
check "a small ping B->C gets through (path resolved)" ping_within 30 B 10.0.11.3
check "B->C before the flood: 10 pings of 60000 bytes, every one answered" ns_ping_all B 10.0.11.3 10 -s 60000
check "B->C established" wait_for 10 sh -c "[ \$(grep -c 'state=established' $(cm_file icm0 connections)) -ge 1 ]"

accepting() { cm_n icm0 'state=accepting'; }
# debugfs cm_limits: the unanswered-REQ pool's fill (req_pool_used=) and capacity (req_pool=)
pool_field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$(cm_file icm0 cm_limits)"; }
# the monitor: accepting and all connections on B, the KiB B's RC rings pin, and the pool's
# fill as debugfs shows it, twice a second
monitor() {
    while [ ! -e $DONE ]; do
        echo "$(accepting) $(cm_n icm0 'dir=') $(ctr B icm0 rc_pinned_kib) $(pool_field req_pool_used)" >> $MON
        sleep 0.5
    done
}
# Linux's timers (CM response timeout 20, 15 retries, Local ACK Timeout 19): ib_cm alone would
# keep each unanswered connection for 65 s of REP retries; our accepting deadline ends it at 10 s
echo 20 > $PAR/cm_timeout; echo 18 > $PAR/life; echo 15 > $PAR/cm_retries
base_kib=$(ctr B icm0 rc_pinned_kib)
snap f B:icm0 C:icm1 D:icm2
rm -f $DONE; : > $MON
monitor &
mon=$!
# 400 REQs 25 ms apart (10 s) outlast the pings below on stock; the debug kernel's pings take
# several times longer, so its flood is four times as long.
nreq=400; [ "$E2E_KERNEL" = debug ] && nreq=1600
(echo "flood softib0 $blid $bgid $sid $nreq 25" > $CTL; touch $DONE) &
flooder=$!
# Full: the pool's own count (debugfs) at its capacity, not only 16 accepting: the unproven
# budget (half the connection limit, 16 here too) alone would hold the accepting ones there
pool_full() { [ "$(accepting)" -ge $POOL ] && [ "$(pool_field req_pool_used)" = $POOL ]; }
check "the flood has filled the pool (16 accepting on B, req_pool_used=16)" wait_for 20 pool_full
check "during the flood: a small ping B->D gets through (path resolved)" ping_within 30 B 10.0.11.4
check "during the flood: B->D, a new connection, 10 pings of 60000 bytes, every one answered" ns_ping_all B 10.0.11.4 10 -s 60000
check "during the flood: B->C, 10 pings of 60000 bytes, every one answered" ns_ping_all B 10.0.11.3 10 -s 60000
check "... the flood was still running" test ! -e $DONE
wait $flooder
wait $mon
diag "flood: $(cat $CTL)"
max_acc=$(awk '$1 > m { m = $1 } END { print m + 0 }' $MON)
max_all=$(awk '$2 > m { m = $2 } END { print m + 0 }' $MON)
max_kib=$(awk '$3 > m { m = $3 } END { print m + 0 }' $MON)
max_pool=$(awk '$4 > m { m = $4 } END { print m + 0 }' $MON)
pool_rows=$(awk 'NF >= 4' $MON | wc -l)
diag "B during the flood: at most $max_acc accepting, $max_all connections, $max_kib KiB pinned (before: $base_kib KiB), pool fill at most $max_pool; $(wc -l < $MON) samples ($pool_rows with the pool's fill)"
check "B never held more than the pool in accepting ($max_acc <= $POOL)" test "$max_acc" -le "$POOL"
check "debugfs cm_limits shows the pool's capacity (req_pool=$(pool_field req_pool) = $POOL)" test "$(pool_field req_pool)" = "$POOL"
check "debugfs showed the pool's fill in every sample during the flood ($pool_rows of $(wc -l < $MON))" \
    test "$pool_rows" -eq "$(wc -l < $MON)" -a "$pool_rows" -ge 1
check "... full at some point and never above its bound ($max_pool = $POOL)" test "$max_pool" -eq "$POOL"
check "B never held the connection limit ($max_all < 32)" test "$max_all" -lt 32
# each connection in accepting pins one posted receive (66 KiB, nonsrq_min_recv=1) and its send ring
check "B's RC rings pinned at most what the pool adds ($max_kib <= $base_kib + $((POOL + 2)) x 80 KiB)" test "$max_kib" -le $((base_kib + (POOL + 2) * 80))
check_delta "REQs beyond the pool refused (cm_req_pool_full)" f B:icm0 cm_req_pool_full -ge 100
check_delta "... as REJ 3 (No Resources)" f B:icm0 cm_rej_tx_3_no_resources -ge 100
fl() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" $CTL; }
check "the flooder saw those REJs (flood_rej3 >= 100)" test "$(fl flood_rej3)" -ge 100
# the REJs ib_cm itself sends when the accepting ones are destroyed carry none (not ours)
check "... each with our private data, RFC 4755 §3.2 (flood_rej_pd = flood_rej3)" test "$(fl flood_rej_pd)" -eq "$(fl flood_rej3)"

t0=$(cut -d. -f1 /proc/uptime)
check "after the flood the unanswered ones age out within 15 s" wait_for 15 sh -c "! grep -q 'state=accepting' $(cm_file icm0 connections)"
diag "accepting gone $(( $(cut -d. -f1 /proc/uptime) - t0 )) s after the flood"
check_delta "... counted as accept timeouts" f B:icm0 cm_accept_timeouts -ge $POOL
check "... and debugfs shows the pool empty (req_pool_used=$(pool_field req_pool_used))" test "$(pool_field req_pool_used)" = 0
r=$(echo "req softib0 $blid $bgid $sid rtu $(printf '00%06x%08x' 0x0abcde 65524)" > $CTL 2>&1 && cat $CTL)
check "a legitimate REQ after the flood is accepted and closes cleanly: $r" sh -c "printf '%s' '$r' | grep -q 'result=rep .*close=drep'"
check "after the flood: B->C, 10 pings of 60000 bytes, every one answered" ns_ping_all B 10.0.11.3 10 -s 60000
check "after the flood: B->D, 10 pings of 60000 bytes, every one answered" ns_ping_all B 10.0.11.4 10 -s 60000
check_delta "no peer entry refused (cm_peers_refused)" f B:icm0 cm_peers_refused -eq 0
# a REQ in another partition (P_Key 0x8001, in softib0's table) to B's parent interface (0xffff)
echo 0x8001 > $PAR/pkey
r=$(echo "req softib0 $blid $bgid $sid rej $(printf '00%06x%08x' 0x0abcdf 65524)" > $CTL 2>&1 && cat $CTL)
echo 0xffff > $PAR/pkey
check "a REQ with another partition's P_Key is refused with REJ 28: $r" sh -c "printf '%s' '$r' | grep -q 'result=rej reason=28 '"
check_delta "... counted cm_req_bad_pkey" f B:icm0 cm_req_bad_pkey -eq 1
cm_ctrs B icm0

echo "flood softib0 $blid $bgid $sid 100 0" > $CTL
diag "second flood: $(cat $CTL); $(accepting) accepting on B"
t0=$(cut -d. -f1 /proc/uptime)
check "rmmod ib_ipoib_cm right after a second flood" rmmod ib_ipoib_cm
t=$(( $(cut -d. -f1 /proc/uptime) - t0 ))
check "... took $t s (at most 20)" test "$t" -le 20
check "the flooder's ids go (flood_end)" sh -c "echo flood_end > $CTL"
check "kernel log clean" dmesg_clean
exit $(tap_status)
