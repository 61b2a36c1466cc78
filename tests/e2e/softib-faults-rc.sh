#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib RC fault knobs under in-tree ipoib connected mode (SRQ): a dropped CM REQ (ib_cm
# resends it after its ~4 s response timeout), forced RNR (ipoib asks
# rnr_retry 0 -> RNR_RETRY_EXC), qp_err (-> flush + LAST_WQE + drain + DREQ) and vanish
# (-> timed RETRY_EXC) on the passive RC QPs; ipoib reaps and reconnects, pings recover,
# no "RX drain timing out". ib0 (A) is connected, ib1 (B) stays in datagram mode, so every
# RC QP on softib1 is a passive (receive) QP and B's replies go back over UD. (A QP forced
# to ERR on the *sending* side only ever returns FLUSH_ERR, which in-tree ipoib ignores: that
# connection stays dead until the neighbour expires, as on real hardware.)
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 17

cnt() { hwc "$1" "$2"; }
sum() { echo $(( $(cnt softib0 $1) + $(cnt softib1 $1) )); }
rc_qpns() { rdma resource show qp link "$1/1" | grep 'type RC' | sed -n 's/.*lqpn \([0-9]*\).*/\1/p'; }
fault_all_rc() { # DEV CMD [ARG]: apply CMD to every RC QP of DEV
    _n=0
    for q in $(rc_qpns "$1"); do echo "$2 $q${3:+ $3}" > /sys/kernel/debug/softib/$1/fault && _n=$((_n + 1)); done
    [ $_n -gt 0 ]
}
recovers() { big_ping_recovers 10.0.3.2; }

cm_oneway 10.0.3
dmesg_mark rcfaults
d0=$(cnt softib0 drop_fault)
check "drop_cm req 1 on softib0" sh -c 'echo "drop_cm req 1" > /sys/kernel/debug/softib/softib0/fault'
check "connected ping -s 60000 works once ib_cm resends the dropped REQ" recovers
check "the dropped REQ was counted" test "$(cnt softib0 drop_fault)" -eq $((d0 + 1))
diag "$(rdma resource show qp link softib1/1)"
check_fail "qp_err on a missing QPN refused" 'Invalid argument' sh -c 'echo "qp_err 0xfffff0" > /sys/kernel/debug/softib/softib1/fault'

r0=$(sum rnr_retry_exceeded)
check "rnr 1 on softib1's RC QPs" fault_all_rc softib1 rnr 1
/sbin/ip netns exec A /usr/bin/ping -c 2 -W 2 -s 60000 10.0.3.2 >/dev/null
check "RNR_RETRY_EXC counted (ipoib asks rnr_retry 0)" test "$(sum rnr_retry_exceeded)" -gt "$r0"
check "traffic recovers after RNR" recovers

e0=$(sum retry_exceeded); f0=$(sum flushed_wqes)
check "qp_err on softib1's RC QPs" fault_all_rc softib1 qp_err
check "flushes counted" test "$(sum flushed_wqes)" -gt "$f0"
check "softib1 has no RC QP in RTS left (drained and destroyed)" sh -c \
    'sleep 2; ! rdma resource show qp link softib1/1 | grep "type RC" | grep -q "state RTS"'
check "traffic recovers after qp_err" recovers

e0=$(sum retry_exceeded)
check "vanish softib1's RC QPs" fault_all_rc softib1 vanish
/sbin/ip netns exec A /usr/bin/ping -c 2 -W 2 -s 60000 10.0.3.2 >/dev/null
check "RETRY_EXC against the vanished peer counted" test "$(sum retry_exceeded)" -gt "$e0"
check "traffic recovers after vanish" recovers
check "link down both (drains)" sh -c '/sbin/ip -n A link set ib0 down && /sbin/ip -n B link set ib1 down'
check_rc "no 'RX drain timing out'" 1 dmesg_has 'RX drain timing out'
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib0/1)"
diag "$(rdma statistic show link softib1/1)"
ns_delete_all
exit $(tap_status)
