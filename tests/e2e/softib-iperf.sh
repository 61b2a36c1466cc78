#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iperf3 over the in-tree ipoib on softib, TCP and UDP both ways (A->B, and B->A with -R),
# 5 s each: in datagram mode, then in connected mode (switched in place inside the
# namespaces) with SRQ (this file) or without (softib-iperf-cm-nosrq.sh sources it with
# softib srq=0 and runs only the connected half). The receiver's Mbit/s of every run is
# printed as a diag line. No loss of the link, RC counters move, kernel log clean.
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: long
. /e2e/lib.sh
srq=$(cat /sys/module/softib/parameters/srq)
# srq=1: datagram + connected (8 iperf3 runs); srq=0: the connected half only (4 runs)
if [ "$srq" = 1 ]; then plan 22; else plan 14; fi
diag "softib srq=$srq"

# perf DESC iperf3-client-args...: run iperf3 from A against the server in B; ok when the
# receiver summary came back; diag "DESC: N Mbit/s" from the receiver line
perf() {
    _d=$1; shift
    _o=$(ns_exec A iperf3 -c 10.0.7.2 -f m "$@" 2>&1)
    _r=$(printf '%s\n' "$_o" | grep 'receiver' | tail -n 1)
    if [ -n "$_r" ]; then
        ok "$_d"
        diag "$_d: $(printf '%s\n' "$_r" | sed -n 's/.* \([0-9.]*\) Mbits\/sec.*/\1/p') Mbit/s"
        diag "  $_r"
    else
        not_ok "$_d"; diag "$_o"
    fi
}

dmesg_mark iperf
wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.7.1/24 && ns_addr B ib1 10.0.7.2/24
both_up() { has_carrier ib0 A && has_carrier ib1 B; }
check "carrier" wait_for 60 both_up
check "iperf3 server in B" iperf3_server B 5201
check "ping A->B" ns_reach A 10.0.7.2 3
if [ "$srq" = 1 ]; then
    snap dg ib:softib0 ib:softib1
    perf "datagram TCP A->B" -t 5
    perf "datagram TCP B->A" -t 5 -R
    perf "datagram UDP A->B 20 Mbit/s 1400 B" -u -b 20M -l 1400 -t 5
    perf "datagram UDP B->A 20 Mbit/s 1400 B" -u -b 20M -l 1400 -t 5 -R
    check_output "datagram: no RC traffic yet" 'cm_mads 0 ' rdma statistic show link softib0/1
    # softib's per-transport counters (softib/README.md): UD carried it, RC nothing
    check_delta "datagram: > 10 MB arrived over UD on softib1" dg ib:softib1 ud_rx_bytes -gt 10000000
    check_delta "datagram: no RC message on softib1" dg ib:softib1 rc_rx_packets -eq 0
    check_delta "datagram: no CM REQ from softib0" dg ib:softib0 cm_tx_req -eq 0
    diag "$(rdma statistic show link softib1/1)"
    # where UDP loss goes (not asserted: UD has no flow control): socket buffers, qdisc, netdev
    for n in A B; do diag "$n $(ns_exec $n grep Udp: /proc/net/snmp | tail -n 1)"; done
    diag "$(ip -n A -s link show ib0)"; diag "$(ip -n B -s link show ib1)"
fi
ip -n A link set ib0 type ipoib mode connected; ip -n B link set ib1 type ipoib mode connected
ip -n A link set ib0 mtu 65520; ip -n B link set ib1 mtu 65520
check_output "ib0 in connected mode (netlink), MTU 65520" 'mtu 65520.*mode connected' sh -c \
    "/sbin/ip -n A -d link show ib0 | tr '\\n' ' '"
check_output "ib1 in connected mode (netlink), MTU 65520" 'mtu 65520.*mode connected' sh -c \
    "/sbin/ip -n B -d link show ib1 | tr '\\n' ' '"
check "ping -s 60000 in connected mode" wait_for 30 ns_reach A 10.0.7.2 1 -s 60000
snap rc ib:softib0 ib:softib1
perf "connected (srq=$srq) TCP A->B" -t 5
perf "connected (srq=$srq) TCP B->A" -t 5 -R
perf "connected (srq=$srq) UDP A->B 20 Mbit/s 16000 B" -u -b 20M -l 16000 -t 5
perf "connected (srq=$srq) UDP B->A 20 Mbit/s 16000 B" -u -b 20M -l 16000 -t 5 -R
# RC carried it: rx_bytes alone would count UD and MADs too. TCP A->B and UDP A->B (5 s at
# 20 Mbit/s is 12.5 MB) arrive at softib1; the -R runs at softib0.
check_delta "connected: > 10 MB arrived over RC on softib1" rc ib:softib1 rc_rx_bytes -gt 10000000
check_delta "connected: > 10 MB arrived over RC on softib0 (the -R runs)" rc ib:softib0 rc_rx_bytes -gt 10000000
check_delta "connected: under 1 MB of it over UD on softib1" rc ib:softib1 ud_rx_bytes -lt 1000000
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib0/1)"
diag "$(rdma statistic show link softib1/1)"
ns_delete_all
exit $(tap_status)
