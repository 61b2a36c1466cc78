#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib RC engine driven directly by the softib_rctest verbs client (softib/test): SEND with
# 3 SGEs, SEND_WITH_IMM, bad WRs, too-long message, flush on ERR, the RNR matrix
# (rnr_retry 0 -> immediate RNR_RETRY_EXC, 3 -> after 3 RNR timer periods, 7 -> never),
# retry-exceeded after the peer is destroyed, UD (post before RTS -> -EINVAL, message longer
# than the receive buffer -> receiver IB_WC_LOC_LEN_ERR + sender SUCCESS, longer than the 4096
# MTU -> sender IB_WC_LOC_LEN_ERR, Q_Key mismatch -> silently dropped + counted), COMM_EST once
# on the first receive in RTR and none in RTS, SRQ (limit
# event, LAST_WQE_REACHED, drain WR completes last), ib_resize_cq (below the queued CQEs
# refused, queued CQEs kept in order, the new size holds) and a 64 MiB throughput stream.
# load: ib_core
# load: softib hosts=1
# load: softib_rctest
# mem: 1024
# timeout: 180
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 8

log() { dmesg | grep 'softib_rctest: '; }
check_output "client ran 31 cases, 0 failed" 'done 31 tests, 0 failed' log
check_rc "no 'not ok' line" 1 sh -c "dmesg | grep -q 'softib_rctest: not ok'"
el() { log | sed -n "s/.*rnr_retry=$1 elapsed_us=\([0-9]*\).*/\1/p"; }
e0=$(el 0); e3=$(el 3)
diag "$(log | grep -E 'stream')"
diag "rnr_retry=0: ${e0:-?} us, rnr_retry=3: ${e3:-?} us (RNR timer 26 = 81920 us)"
check "rnr_retry=0 fails before one RNR timer period" test "${e0:-99999999}" -lt 81920
check "rnr_retry=3 fails after >= 3 RNR timer periods" test "${e3:-0}" -ge 245760
check_output "UD Q_Key mismatch counted (drop_qkey)" 'drop_qkey [1-9]' rdma statistic show link softib0/1
check_output "UD length errors counted (drop_len)" 'drop_len [1-9]' rdma statistic show link softib0/1
check_output "rnr_nak counted" 'rnr_nak [1-9]' rdma statistic show link softib0/1
check "kernel log clean" dmesg_clean
diag "$(log)"
diag "$(rdma statistic show link softib0/1)"
exit $(tap_status)
