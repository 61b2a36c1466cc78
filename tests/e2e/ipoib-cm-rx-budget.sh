#!/bin/sh
# Connected mode without SRQ, the growth budget of the receive rings (docs/connected.md §5):
# nonsrq_grow_mb=2 lets one connection's ring grow to 3 buffers (an eighth of 2 MiB at ~68 KiB
# a buffer) from its one (nonsrq_min_recv=1), whatever nonsrq_max_recv (32) allows. An iperf3
# stream A->B: B's ring grows (rc_rx_grown), stops at 3 (debugfs rx_size), further growth is
# refused and counted (rc_rx_grow_refused); no QP is ever left with nothing posted
# (rc_rx_left_empty) and every consumed receive is reposted once the stream ends; 60000-byte
# pings both ways afterwards are all answered.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 srq=0
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d nonsrq_min_recv=1 nonsrq_grow_mb=2
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: long
. /e2e/lib.sh
plan 16

cb=/sys/kernel/debug/ib_ipoib_cm/icm1/connections
dmesg_mark rxbudget
cm_ours_pair 10.0.12
check "a 60000-byte ping A->B sets up the connection" wait_for 30 ns_reach A 10.0.12.2 1 -s 60000
check "iperf3 server in B" iperf3_server B 5201
snap s A:icm0 B:icm1
ns_exec A iperf3 -c 10.0.12.2 -t 8 -f m > /tmp/iperf.out 2>&1 &
ipid=$!
: > /tmp/sizes
while kill -0 $ipid 2>/dev/null; do sed -n 's/.* rx_size=\([0-9]*\) .*/\1/p' $cb >> /tmp/sizes; sleep 0.5; done
wait $ipid
check "iperf3 A->B completed" grep -q 'receiver' /tmp/iperf.out
diag "$(grep -E 'sender|receiver' /tmp/iperf.out | tr -s ' ')"
top=$(sort -n /tmp/sizes | tail -n 1)
diag "B's ring sizes seen: $(sort -n /tmp/sizes | uniq -c | tr -s ' \n' ' ')"
check_delta "B's ring grew from one buffer (rc_rx_grown)" s B:icm1 rc_rx_grown -ge 1
check "... to at most its share of the budget, 3 buffers (largest seen: $top)" test "${top:-99}" -le 3
check_delta "growth beyond it refused and counted (rc_rx_grow_refused)" s B:icm1 rc_rx_grow_refused -ge 1
check_delta "B: no QP left with nothing posted (rc_rx_left_empty)" s B:icm1 rc_rx_left_empty -eq 0
check_delta "A: no QP left with nothing posted (rc_rx_left_empty)" s A:icm0 rc_rx_left_empty -eq 0
all_posted() { grep ' state=established ' "$1" | awk '{ p = $0; sub(/.* rx_posted=/, "", p); sub(/ .*/, "", p); s = $0; sub(/.* rx_size=/, "", s); sub(/ .*/, "", s); if (p != s || p < 1) bad = 1 } END { exit bad || NR == 0 }'; }
check "after the stream every receive of B's ring is posted (at least one)" wait_for 10 all_posted $cb
check "ping -s 60000 A->B, every one answered" ns_ping_all A 10.0.12.2 10 -s 60000
check "ping -s 60000 B->A, every one answered" ns_ping_all B 10.0.12.1 10 -s 60000
cm_ctrs B icm1
check "kernel log clean" dmesg_clean
exit $(tap_status)
