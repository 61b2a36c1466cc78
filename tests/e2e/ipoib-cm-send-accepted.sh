#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, the test knob send_accepted (debugfs ib_ipoib_cm/<if>/send_accepted,
# docs/connected.md §2 "Who sends over a passive connection"): a third-party RFC 4755 peer
# may send over the connection it accepted even when we do not announce kCapBidir, and we
# must receive on our ACTIVE QP whatever arrives (docs/protocol.md §2.9). Ours on both softib
# hosts, cm_bidir=0 (module parameter: both ends one-way, Linux style); icm1 (B) with the
# knob set stands in for that peer. The knob's validation first (0/1 only, one log line per
# refused write). Then A connects to B while B ignores echo requests (so B never sends and
# never resolves a path to A), and B answers: B must send over the connection it accepted
# (no active connection of its own, no REQ from softib1), A receives on its active QP (rx=
# on its dir=active line), both ways, 60000-byte pings and iperf3 -R (B -> A over that one
# connection); no RNR retry exceeded. SRQ (this file); ipoib-cm-send-accepted-nosrq.sh
# sources it with srq=0 (then A receives on the active QP's own ring, from nonsrq_min_recv=1,
# checked to start at one buffer). Pings and iperf3 runs are shorter on the debug kernel (5 and
# 2 pings instead of 10 and 3, 3 s instead of 5 s): the same paths and checks, fewer packets.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d cm_bidir=0 nonsrq_min_recv=1
# mem: 1024
# timeout: 300
# kernels: stock debug
. /e2e/lib.sh
SRQ=$(cat /sys/module/softib/parameters/srq)
# srq=0: one check more, A's active ring at its first size
plan $((40 + (SRQ == 0 ? 1 : 0)))

diag "softib srq=$SRQ"
nsmall=$(by_kernel 10 5); nbig=$(by_kernel 3 2); secs=$(by_kernel 5 3)
K=$(cm_file icm1 send_accepted)
dmesg_mark knob
check "icm0 and icm1 exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1'
check_output "send_accepted reads 0 at first" '^0$' cat "$K"
check_fail "send_accepted: 2 refused" 'Invalid argument' sh -c "echo 2 > $K"
check_fail "send_accepted: 'yes' refused" 'Invalid argument' sh -c "echo yes > $K"
check_fail "send_accepted: '01' refused" 'Invalid argument' sh -c "echo 01 > $K"
# longer than the shim passes on (KAPI_DEBUGFS_WRITE_MAX 32), in one write (dd reports the errno)
check_fail "send_accepted: 40 bytes refused" 'Invalid argument' sh -c "printf '1%039d' 0 | dd of=$K bs=64 2>&1"
check_output "... still 0" '^0$' cat "$K"
nlog() { dmesg_since_mark | grep -c 'send_accepted: invalid value'; }
check "one log line per refused write (4)" test "$(nlog)" -eq 4
check "send_accepted: 1 accepted (positive control)" sh -c "echo 1 > $K"
check_output "send_accepted reads 1" '^1$' cat "$K"
check_output "A's knob untouched (0)" '^0$' cat "$(cm_file icm0 send_accepted)"

addr_a=$(cat /sys/class/net/icm0/address)
cm_ours_pair 10.0.5
check "static neighbour for A on B" ns_ip B neigh replace 10.0.5.1 lladdr "$addr_a" nud permanent dev icm1
check "MTU 65520 on both" sh -c '/sbin/ip -n A link set icm0 mtu 65520 && /sbin/ip -n B link set icm1 mtu 65520'
snap s ib:softib0 ib:softib1 A:icm0 B:icm1
# B silent: A's pings open A's connection, B sends nothing to A yet
ns_exec B sh -c 'echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_all'
a_conn() { ns_exec A /usr/bin/ping -c 1 -W 1 10.0.5.2 >/dev/null 2>&1; cm_has icm0 1 'dir=active .* state=established '; }
check "A: one active connection, established (B silent)" wait_for 30 a_conn
check "B: one passive connection, established, bidir=0" wait_for 10 cm_has icm1 1 'dir=passive .* state=established .* bidir=0 '
# without SRQ the active QP has its own ring, posted at nonsrq_min_recv (1) when it was
# created; B has sent nothing over the connection yet, so nothing grew it
[ "$SRQ" = 0 ] && check "A's active ring starts at one buffer (rx_size=1 rx_grown=0, nonsrq_min_recv=1)" \
    cm_has icm0 1 'dir=active .* rx_posted=1 rx_size=1 rx_grown=0 '
ns_exec B sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_all'
check "ping A->B (B answers over the connection it accepted)" ns_ping_all A 10.0.5.2 "$nsmall"
check "ping B->A" ns_ping_all B 10.0.5.1 "$nsmall"
check "ping -s 60000 A->B" ns_ping_all A 10.0.5.2 "$nbig" -s 60000
check "ping -s 60000 B->A" ns_ping_all B 10.0.5.1 "$nbig" -s 60000
check "iperf3 server in A" iperf3_server A 5201
check "iperf3 -R: A (the server) sends to B for $secs s" ns_exec B iperf3 -c 10.0.5.1 -t "$secs" -f m -R
check "iperf3: B sends to A for $secs s" ns_exec B iperf3 -c 10.0.5.1 -t "$secs" -f m
cm_show icm0 icm1
check "A: still exactly one connection, the active one" cm_has icm0 1 'dir=active .* state=established '
check "B: still exactly one connection, the passive one (no active of its own)" cm_has icm1 1 'dir=passive .* state=established '
check_delta "softib1 sent no REQ" s ib:softib1 cm_tx_req -eq 0
check "A: no RC send in flight" wait_for 10 rc_drained A icm0
check "B: no RC send in flight" wait_for 10 rc_drained B icm1
rx_a=$(cm_field icm0 'dir=active' rx); tx_b=$(cm_field icm1 'dir=passive' tx)
tx_a=$(cm_field icm0 'dir=active' tx); rx_b=$(cm_field icm1 'dir=passive' rx)
# (packet counts, not rates: the debug kernel moved ~770 packets in 5 s runs, stock ~6000;
# pings alone are 26 each way on stock, 14 on the debug kernel)
check "A received on its active QP: rx=$rx_a >= 100" test "${rx_a:-0}" -ge 100
check "... all that B sent over its passive QP: tx=$tx_b = rx=$rx_a" test "${tx_b:-0}" -eq "${rx_a:-1}"
check "all that A sent over its active QP arrived: tx=$tx_a = B's passive rx=$rx_b" test "${tx_a:-0}" -eq "${rx_b:-1}"
check_delta "softib0 received >= 5 MB over RC" s ib:softib0 rc_rx_bytes -ge 5000000
# the guarantee, counted by the driver: no poll left a live QP with no receive posted
check_delta "A: no QP left with nothing posted (rc_rx_left_empty)" s A:icm0 rc_rx_left_empty -eq 0
check_delta "B: no QP left with nothing posted (rc_rx_left_empty)" s B:icm1 rc_rx_left_empty -eq 0
# rnr_retry is 7 (infinite), so an empty ring shows as RNR NAKs to the sender, never as a
# failed send: bounded by the messages the receiving ring took (a ring that fell behind on
# every message would NAK each one), reported for the transient gap a one-buffer ring has
nak_a=$(delta s ib:softib1 rnr_nak); nak_b=$(delta s ib:softib0 rnr_nak)
diag "RNR NAKs to B's sends (A's ring): ${nak_a:-?} per ${rx_a:-?} messages; to A's sends (B's ring): ${nak_b:-?} per ${rx_b:-?}"
check "RNR NAKs to B's sends ($nak_a) <= the messages A received ($rx_a)" test "${nak_a:-1}" -le "${rx_a:-0}"
check "RNR NAKs to A's sends ($nak_b) <= the messages B received ($rx_b)" test "${nak_b:-1}" -le "${rx_b:-0}"
cm_ctrs A icm0; cm_ctrs B icm1
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
