#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, ours <-> ours (softib SRQ): `ip link set down` on A in the middle of an RC
# stream, `up`, traffic again; twice. The receive CQ lives across down/up and softib (like rxe)
# leaves a destroyed QP's completions in it, so interface stop must never destroy a QP whose
# fence is open (docs/connected.md §4): a connection still draining at stop keeps its QP in
# error and completes its fence on the next open's NAPI; only teardown forces. Asserted: no
# forced destroy across the cycles, no completion of a QP that is not ours on the CQ
# (wc_foreign_ctx), A reaches B over a new RC connection after each up, the kernel log clean
# (KASAN on the debug kernel: a CQE of a freed QP is a use-after-free in the poll).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 300
# kernels: stock debug
. /e2e/lib.sh
plan 17

ca=/sys/kernel/debug/ib_ipoib_cm/icm0/connections
dmesg_mark updown
cm_ours_pair 10.0.4
check "MTU 65520 on A" ns_ip A link set icm0 mtu 65520
check "warm-up ping A->B (path, connection)" wait_for 30 ns_reach A 10.0.4.2 1
check "iperf3 server in B" iperf3_server B 5201
snap u A:icm0 ib:softib0
established() { grep -q ' state=established ' $ca; }
reconnected() { ns_reach A 10.0.4.2 1 >/dev/null 2>&1 && established; }
for round in 1 2; do
    ns_exec A iperf3 -c 10.0.4.2 -t 6 -f m > /tmp/iperf.$round 2>&1 &
    ipid=$!
    sleep 2
    diag "round $round before down: $(cat $ca | tr '\n' ' ')"
    check "round $round: A down mid-stream" ns_ip A link set icm0 down
    diag "round $round after down: $(cat $ca | tr '\n' ' ')"
    sleep 1
    check "round $round: A up" ns_ip A link set icm0 up
    wait $ipid
    diag "round $round iperf3: $(tail -n 3 /tmp/iperf.$round | tr '\n' ' ')"
    check "round $round: A reaches B over RC again" wait_for 60 reconnected
done
check_delta "traffic rode RC (softib0 sent >= 1 MB over RC)" u ib:softib0 rc_tx_bytes -ge 1000000
check_delta "no connection destroyed without its fence at stop" u A:icm0 cm_forced_destroys -eq 0
check_delta "no completion of a foreign or freed QP on A's CQs" u A:icm0 wc_foreign_ctx -eq 0
diag "$(ns_exec A ethtool -S icm0 | grep -E '^ +(cm_|rc_|wc_)' | grep -v ': 0$' | tr '\n' ' ')"
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
