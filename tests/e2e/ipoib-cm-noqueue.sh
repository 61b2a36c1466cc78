#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode under a noqueue root qdisc (docs/connected.md §4). With
# noqueue, __dev_queue_xmit calls ndo_start_xmit under the tx queue's own _xmit_lock and
# tests only the queue's stopped bit, never the FROZEN bit netif_tx_lock sets (net/core/dev.c;
# netpoll too): netif_tx_lock does not keep xmit out, so a peer housekeeping unlinks and
# frees could still be read by xmit's lock-free lookup (CmPeerIndex). The table takes the
# single queue's _xmit_lock itself (kapi_netdev_xmit_lock) for the unlink and the flushes.
# softib hosts=3, ours on all three (icm0 in A, icm1 in B, icm2 in C), cm_idle_timeout=1,
# every interface on noqueue. While iperf3 --bidir A<->B and a ping flood A->B run, A pings
# C once, waits for C's connection to be reaped and C's peer entry freed (cm_peers_freed),
# and again, so the peer index changes under full-speed xmit. Also on the debug kernel
# (CONFIG_NET_SCHED), where KASAN and lockdep watch it.
# Then: traffic both ways completed, every one of the flood's 2000 pings answered or its drop
# counted, peers were freed several times, the RC send bound is back to 0 in flight with no
# underflow, and each packet of a paced ping to C arrives.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3
# load: ib_ipoib_cm ports=softib0:1,softib1:1,softib2:1 ifname=icm%d cm_idle_timeout=1
# mem: 1024
# timeout: 300
# kernels: stock debug
. /e2e/lib.sh
plan 21

dmesg_mark noqueue
check "icm0, icm1, icm2 exist (ours)" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1 && test -e /sys/class/net/icm2'
check "all -> connected mode" sh -c 'for i in 0 1 2; do echo connected > /sys/class/net/icm$i/mode || exit 1; done'
ns_create A B C
ns_move icm0 A && ns_move icm1 B && ns_move icm2 C
ns_addr A icm0 10.0.9.1/24 && ns_addr B icm1 10.0.9.2/24 && ns_addr C icm2 10.0.9.3/24
up3() { has_carrier icm0 A && has_carrier icm1 B && has_carrier icm2 C; }
check "carrier on all three" wait_for 60 up3
check "MTU 65520 on all three" sh -c '/sbin/ip -n A link set icm0 mtu 65520 && /sbin/ip -n B link set icm1 mtu 65520 && /sbin/ip -n C link set icm2 mtu 65520'
check "root qdisc noqueue on all three" sh -c '/sbin/tc -n A qdisc replace dev icm0 root noqueue && /sbin/tc -n B qdisc replace dev icm1 root noqueue && /sbin/tc -n C qdisc replace dev icm2 root noqueue'
check_output "A's root qdisc is noqueue" 'qdisc noqueue' ns_exec A tc qdisc show dev icm0
check "warm-up ping A->B" wait_for 30 ns_reach A 10.0.9.2 1
check "warm-up ping A->C" wait_for 30 ns_reach A 10.0.9.3 1

ra=$(cm_file icm0 rc_send); rb=$(cm_file icm1 rc_send)
snap s A:icm0 B:icm1 C:icm2
check "iperf3 server in B" iperf3_server B 5201
# 14 s: about as long as the 2000-ping flood below takes beside it on the stock VM (14.8 s), so
# the three streams overlap for the whole window; C's pings run for as long (a reap and free
# about every 2 s: 9 frees in 20 s measured, >= 2 checked)
ns_exec A iperf3 -c 10.0.9.2 -t 14 -f m --bidir > /tmp/iperf.out 2>&1 &
ipid=$!
# drops either netdev of the A-B pair counted (a full ring under noqueue, say): the flood's
# only allowed loss
ab_drops() {
    _d=0
    for _x in A:icm0 B:icm1; do
        for _k in tx_dropped rx_dropped; do
            _v=$(ns_exec "${_x%%:*}" cat "/sys/class/net/${_x#*:}/statistics/$_k") || return 1
            _d=$((_d + _v))
        done
    done
    echo "$_d"
}
drops0=$(ab_drops)
ns_exec A ping -f -c 2000 -W 5 -s 1400 10.0.9.2 > /tmp/flood.out 2>&1 &
fpid=$!
# C goes idle between its pings: its connection is reaped (1 s idle, housekeeping's 1 s
# period, the fence) and then its peer entry freed, while A's xmit runs for B at full speed.
: > /tmp/cping
end=$(( $(cut -d. -f1 /proc/uptime) + 14 ))
while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
    ns_exec A ping -c 1 -W 2 10.0.9.3 >> /tmp/cping 2>&1
    sleep 2.5
done
wait $ipid; irc=$?
wait $fpid
diag "$(tail -n 6 /tmp/iperf.out)"
diag "flood: $(grep -E 'packets transmitted' /tmp/flood.out)"
check "iperf3 --bidir finished" test $irc = 0
check_output "iperf3 --bidir: the client's sending direction reported" 'TX-C.*receiver' cat /tmp/iperf.out
check_output "iperf3 --bidir: the client's receiving direction reported" 'RX-C.*receiver' cat /tmp/iperf.out
flood_all() {
    _rx=$(sed -n 's/.* \([0-9][0-9]*\) received.*/\1/p' /tmp/flood.out)
    _d=$(( $(ab_drops) - drops0 ))
    diag "flood: ${_rx:-no summary} of 2000 answered; drops counted by A and B: $_d"
    [ -n "$_rx" ] && [ $((_rx + _d)) -ge 2000 ]
}
check "the ping flood: all 2000 answered, but for drops A's or B's netdev counted" flood_all
check_delta "A freed idle peer entries while traffic ran (C's, >= 2 times)" s A:icm0 cm_peers_freed -ge 2
# Either end of A-C may reap it (both have cm_idle_timeout=1; the other counts cm_peer_closed):
# on the debug kernel C was first in 5 of 6 closes (A cm_reaped +1, cm_peer_closed +6).
reaped_ac() {
    _ra=$(delta s A:icm0 cm_reaped) && _rc=$(delta s C:icm2 cm_reaped) || return 1
    diag "cm_reaped: A +$_ra, C +$_rc"
    [ $((_ra + _rc)) -ge 2 ]
}
check "C's connection was reaped while traffic ran (by A or C, >= 2 times)" reaped_ac
check_delta "both directions rode RC: A sent >= 1 MB" s A:icm0 rc_tx_bytes -ge 1000000
check_delta "... and B >= 1 MB" s B:icm1 rc_tx_bytes -ge 1000000
rc_idle() { grep -qx 'inflight=0 limit=[0-9]* underflows=0' "$1"; }
check "A: no RC send in flight after the run, no underflow" wait_for 10 rc_idle $ra
check "B: no RC send in flight after the run, no underflow" wait_for 10 rc_idle $rb
check "after the run: 10 paced pings A->C all answered" ns_ping_all A 10.0.9.3 10
cm_ctrs A icm0; cm_ctrs B icm1
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
