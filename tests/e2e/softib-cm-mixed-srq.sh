#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib's per-host SRQ setting (host_srq=): the unmodified in-tree ib_ipoib in connected mode
# between a host with SRQ and one without. This file: host_srq=1,0 (softib0 in namespace A has
# SRQ, softib1 in B does not); softib-cm-mixed-srq-rev.sh sources it with host_srq=0,1. Each
# device must report its own setting (rdma dev caps: SRQ_RESIZE only with SRQ), ipoib must have
# created an SRQ only on the SRQ host, with the RC QPs attached to it after traffic (rdma
# resource show srq lists them), and 60000-byte pings and a short iperf3 TCP must work both
# ways with A initiating (so the first connection's active side is the host listed first).
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100 host_srq=1,0
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 21

hs=$(cat /sys/module/softib/parameters/host_srq)
srq0=${hs%%,*}; srq1=${hs##*,}
diag "softib host_srq=$hs (softib0 in A: srq=$srq0, softib1 in B: srq=$srq1)"
check "host_srq is one SRQ host and one non-SRQ host" test "$srq0$srq1" = 10 -o "$srq0$srq1" = 01
check_output "load line reports host_srq=$hs" "softib: 2 host.*host_srq=$hs\$" dmesg

# caps DEV: the device capability flags ib_core cached from query_device at registration
caps() { rdma dev show "$1" -d | tr '\n' ' '; }
# has_srq DEV: ipoib created an SRQ on DEV (resource tracking lists it, with its QPs)
srqs() { rdma resource show srq | grep "dev $1 "; }
for i in 0 1; do
    eval s=\$srq$i
    if [ "$s" = 1 ]; then
        check_output "softib$i reports SRQ (caps SRQ_RESIZE)" 'caps: <[^>]*SRQ_RESIZE' caps softib$i
        check "ipoib created an SRQ on softib$i" wait_for 10 sh -c "rdma resource show srq | grep -q 'dev softib$i '"
    else
        check_rc "softib$i reports no SRQ (no SRQ_RESIZE in caps)" 1 sh -c "rdma dev show softib$i -d | grep -q SRQ_RESIZE"
        check_rc "ipoib created no SRQ on softib$i" 1 sh -c "rdma resource show srq | grep -q 'dev softib$i '"
    fi
done

dmesg_mark mixed
check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
echo connected > /sys/class/net/ib0/mode; echo connected > /sys/class/net/ib1/mode
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.11.1/24 && ns_addr B ib1 10.0.11.2/24
ip -n A link set ib0 mtu 65520; ip -n B link set ib1 mtu 65520
check_output "both in connected mode, MTU 65520" 'mtu 65520.*mode connected.*mtu 65520.*mode connected' sh -c \
    "{ /sbin/ip -n A -d link show ib0; /sbin/ip -n B -d link show ib1; } | tr '\n' ' '"
both_up() { has_carrier ib0 A && has_carrier ib1 B; }
check "carrier on both" wait_for 60 both_up
check "warm-up ping A->B (A initiates the first RC connection)" wait_for 60 ns_reach A 10.0.11.2 1
check "ping -s 60000 A->B" ns_ping_all A 10.0.11.2 5 -s 60000
check "ping -s 60000 B->A" ns_ping_all B 10.0.11.1 5 -s 60000

ns_exec B iperf3 -s -D >/dev/null 2>&1
check "iperf3 server in B" wait_for 10 sh -c '/sbin/ip netns exec B ss -ltn | grep -q ":5201 "'
perf() { # DESC iperf3-client-args...: ok when the receiver summary came back, Mbit/s as diag
    _d=$1; shift
    _o=$(ns_exec A iperf3 -c 10.0.11.2 -f m "$@" 2>&1)
    _r=$(printf '%s\n' "$_o" | grep 'receiver' | tail -n 1)
    if [ -n "$_r" ]; then
        ok "$_d"; diag "$_d: $(printf '%s\n' "$_r" | sed -n 's/.* \([0-9.]*\) Mbits\/sec.*/\1/p') Mbit/s"
    else
        not_ok "$_d"; diag "$_o"
    fi
}
perf "iperf3 TCP A->B, 3 s (host_srq=$hs)" -t 3
perf "iperf3 TCP B->A, 3 s (host_srq=$hs)" -t 3 -R

# After traffic both ways each host has passive RC QPs; on the SRQ host they (and its active
# QPs) are attached to the SRQ, so the SRQ's entry lists QPNs; the other host still has none.
rc_on() { rdma resource show qp link "$1/1" | grep -c 'type RC'; }
check "RC QPs on both hosts" test "$(rc_on softib0)" -gt 0 -a "$(rc_on softib1)" -gt 0
if [ "$srq0" = 1 ]; then sd=softib0; nd=softib1; else sd=softib1; nd=softib0; fi
check_output "the SRQ on $sd lists its attached RC QPs" 'lqpn [1-9]' srqs $sd
check_rc "still no SRQ on $nd" 1 sh -c "rdma resource show srq | grep -q 'dev $nd '"
diag "$(rdma resource show srq)"
diag "$(rdma resource show qp | grep 'type RC')"

check "link down both (teardown of RC QPs)" sh -c '/sbin/ip -n A link set ib0 down && /sbin/ip -n B link set ib1 down'
check_rc "no 'RX drain timing out'" 1 dmesg_has 'RX drain timing out'
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib0/1)"
diag "$(rdma statistic show link softib1/1)"
ns_delete_all
exit $(tap_status)
