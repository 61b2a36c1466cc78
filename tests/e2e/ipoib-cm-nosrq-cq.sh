#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode without SRQ at 512 receives per QP (nonsrq_max_recv=512): the receive CQ must
# hold every QP that can complete on it (UD receives, the RC send bound, and per connection
# its ring at 512 plus its drain WR, docs/connected.md §4), and softib's max_cqe (65536) does
# not hold 128 such rings: before the clamp the bring-up failed in both modes (no icm0/icm1).
# Now the bound on connections is lowered to what the CQ holds (one log line), both ends come
# up, connect and carry traffic, and nothing overruns the CQ. The netdev's statistics
# (ndo_get_stats64) count the RC sends.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 srq=0
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d recv_queue_size=512 nonsrq_max_recv=512 max_nonsrq_conn_qp=128
# mem: 1024
# timeout: 300
# kernels: stock debug
. /e2e/lib.sh
plan 14

ca=/sys/kernel/debug/ib_ipoib_cm/icm0/connections
check "icm0 and icm1 exist (bring-up did not fail on the CQ size)" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1'
check_output "the CQ bound lowered max_nonsrq_conn_qp, logged (once per interface)" '^2$' \
    sh -c "dmesg | grep -c 'CQ holds 65536 entries: at most 126 connections (max_nonsrq_conn_qp 128), 512 receives each'"
check_output "without SRQ" 'connected mode without SRQ' dmesg
check "both -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode && echo connected > /sys/class/net/icm1/mode'
ns_create A B
ns_move icm0 A && ns_move icm1 B
ns_addr A icm0 10.0.3.1/24 && ns_addr B icm1 10.0.3.2/24
both_up() { has_carrier icm0 A && has_carrier icm1 B; }
check "carrier on both" wait_for 60 both_up
snap s A:icm0 B:icm1 ib:softib0 ib:softib1
txp() { ns_exec A cat /sys/class/net/icm0/statistics/tx_packets; }
tx0=$(txp)
check "warm-up ping A->B (ARP over UD, path, connection)" wait_for 30 ns_reach A 10.0.3.2 1
check "ping -s 30000 A->B over RC" ns_ping_all A 10.0.3.2 5 -s 30000
check "A: an established connection" grep -q ' state=established ' $ca
diag "A: $(cat $ca)"
iperf3_server B 5201 -1
check_output "iperf3 A->B over RC" 'receiver' ns_exec A iperf3 -c 10.0.3.2 -t 4 -f m
check_delta "RC carried it (rc_tx_packets on A)" s A:icm0 rc_tx_packets -ge 1000
# ndo_get_stats64 includes RC sends, not UD's alone
rc=$(delta s A:icm0 rc_tx_packets); tx1=$(txp)
diag "statistics/tx_packets +$((tx1 - tx0)), rc_tx_packets +$rc"
check "statistics/tx_packets counts the RC sends too" sh -c "[ $((tx1 - tx0)) -ge $rc ]"
check_delta "nothing overran A's CQs (softib0 cq_overflow)" s ib:softib0 cq_overflow -eq 0
check_delta "nothing overran B's CQs (softib1 cq_overflow)" s ib:softib1 cq_overflow -eq 0
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
