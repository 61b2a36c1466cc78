#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A connection's MTU below the netdev's (RFC 4755 §5.1: min of both Receive MTUs - 4), ours <->
# ours. softib host_recv_sge=32,8: softib1's receives hold 8 SGEs, so B's buffers hold
# 3712 + 7 x 4096 = 32384 octets: B advertises that Receive MTU and its connected-mode netdev
# MTU is capped at 32380 (docs/connected.md §3 "MTUs"), while A keeps 65520. A packet A sends above 32380 is
# answered with ICMP frag-needed (IPv4 with DF, or without DF from a local socket) or
# packet-too-big (IPv6) carrying 32380, so the route's PMTU follows and ping -M dont / TCP get
# through. Before: dropped silently as rc_tx_drop_too_big.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 host_recv_sge=32,8
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 300
# kernels: stock stock-6.12 debug
. /e2e/lib.sh
plan 42

dmesg_mark pmtu
check "icm0 and icm1 exist (both ours)" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1'
check "both -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode && echo connected > /sys/class/net/icm1/mode'
check_output "icm0 (32 SGEs): connected-mode MTU 65520" 'mtu 65520 ' ip link show icm0
check_output "icm1 (8 SGEs): connected-mode MTU capped at 32380" 'mtu 32380 ' ip link show icm1
check_fail "icm1: MTU 32381 refused" 'Invalid argument|Error' ip link set icm1 mtu 32381
check "icm1: a lower MTU is still allowed, and 32380 again" sh -c '/sbin/ip link set icm1 mtu 9000 && /sbin/ip link set icm1 mtu 32380'
addr_b=$(cat /sys/class/net/icm1/address); addr_a=$(cat /sys/class/net/icm0/address)
ns_create A B
ns_move icm0 A && ns_move icm1 B
ns_addr A icm0 10.0.2.1/24 && ns_addr B icm1 10.0.2.2/24
ns_ip A -6 addr add fd00::1/64 dev icm0 nodad; ns_ip B -6 addr add fd00::2/64 dev icm1 nodad
check "carrier on both" wait_for 60 _cm_both_up
check "static neighbours both ways" sh -c "/sbin/ip -n A neigh replace 10.0.2.2 lladdr $addr_b nud permanent dev icm0 &&
    /sbin/ip -n B neigh replace 10.0.2.1 lladdr $addr_a nud permanent dev icm1 &&
    /sbin/ip -n A neigh replace fd00::2 lladdr $addr_b nud permanent dev icm0 &&
    /sbin/ip -n B neigh replace fd00::1 lladdr $addr_a nud permanent dev icm1"

# The connection first (small pings): packets before it go over UD, whose own 2044 would
# otherwise be what the ICMP says.
check "warm-up ping A->B opens the connection" wait_for 30 ns_reach A 10.0.2.2 1
conn_up() { grep -q ' state=established ' "$(cm_file icm0 connections)"; }
check "A: connection established" wait_for 20 conn_up
cm_show icm0 icm1
check "A's connection: mtu=32380 (B's Receive MTU 32384 - 4)" sh -c "grep ' state=established ' $(cm_file icm0 connections) | grep -q ' mtu=32380 '"
check "B's connection: mtu=32380, the same as B's netdev MTU" sh -c "grep ' state=established ' $(cm_file icm1 connections) | grep -q ' mtu=32380 '"
check "ping -s 32352 (IP 32380) with DF fits the connection" ns_ping_all A 10.0.2.2 2 -s 32352 -M do

snap v4 A:icm0
check_fail "ping -M do -s 40000: ICMP frag-needed with mtu 32380" '[Ff]rag needed.*mtu = 32380' ns_exec A /usr/bin/ping -c 1 -W 2 -M do -s 40000 10.0.2.2
check_delta "... counted tx_icmp_frag_needed" v4 A:icm0 tx_icmp_frag_needed -eq 1
check_delta "... and rc_tx_too_big" v4 A:icm0 rc_tx_too_big -eq 1
check_output "A's route to B learned PMTU 32380" 'mtu 32380' ns_ip A route get 10.0.2.2
check_fail "the next ping -M do -s 40000 is refused locally (mtu=32380)" 'mtu=32380|[Mm]essage too long' ns_exec A /usr/bin/ping -c 1 -W 2 -M do -s 40000 10.0.2.2
check "ping -M dont -s 40000 goes through, fragmented at the PMTU" ns_ping_all A 10.0.2.2 3 -M dont -s 40000
# A fresh route (no PMTU yet) without DF: the first packet is answered with frag-needed (the
# local socket's route then fragments), later ones get through.
ns_ip A route flush cache
snap fl A:icm0
check "after a route flush: ping -M dont -s 40000, the first answered by frag-needed, the other 3 by replies" ns_ping_errs A 10.0.2.2 4 1 -M dont -s 40000
check_delta "... that one frag-needed counted (PMTU learned again)" fl A:icm0 tx_icmp_frag_needed -eq 1

snap v6 A:icm0
check_fail "ping -6 -M do -s 40000: packet too big with mtu 32380" '[Pp]acket too big.*mtu[=: ]*32380' ns_exec A /usr/bin/ping -6 -c 1 -W 2 -M do -s 40000 fd00::2
check_delta "... counted tx_icmp_pkt_too_big" v6 A:icm0 tx_icmp_pkt_too_big -eq 1
check_output "A's IPv6 route to B learned PMTU 32380" 'mtu 32380' ns_ip A -6 route get fd00::2
check "ping -6 -s 40000 goes through (fragmented by A at the PMTU)" ns_ping_all A fd00::2 3 -6 -s 40000

# A kernel control socket's packet that waited for its connection. B in datagram mode (it still
# accepts connections) and A in datagram mode and back close the connection; B's ping of 40000
# then reaches A over UD (fragmented by B at 2044), and A's echo reply (40028 octets, no DF: the
# ICMP socket never sets it) waits while A connects to B, giving the ICMP socket's send buffer
# back meanwhile (core/ipoib_hold.h), and is then above the connection's MTU. Still this host's
# packet, it is answered with frag-needed to A's own stack (that reply is lost, A's route learns
# 32380), not dropped as a forwarded one (tx_drop_too_big).
conn_gone() { ! grep -q ' state=' "$(cm_file icm0 connections)" && ! grep -q ' state=' "$(cm_file icm1 connections)"; }
check "B -> datagram, A -> datagram and back: the connection closes" sh -c "/sbin/ip -n B link set icm1 type ipoib mode datagram &&
    /sbin/ip -n A link set icm0 type ipoib mode datagram && /sbin/ip -n A link set icm0 type ipoib mode connected &&
    /sbin/ip -n A link set icm0 mtu 65520"
check "... no connection left on either end" wait_for 20 conn_gone
ns_ip A route flush cache
snap held A:icm0
diag "B's first ping: $(ns_net B /usr/bin/ping -c 1 -W 1 -M dont -s 40000 10.0.2.1 2>&1 | grep transmitted)"
held_done() { delta_ge held A:icm0 tx_icmp_frag_needed 1 || delta_ge held A:icm0 tx_drop_too_big 1; }
check "A's reply to B's first ping, above the new connection's MTU, was dealt with" wait_for 10 held_done
# That reply itself waited, not another packet of A's to B: a connection opens only for a
# packet that waits for it (cm_tx_queued), and once it is established its queue goes out
# before anything else. Had another packet opened it, that one would have waited and then
# gone over the connection, and the reply, sent after it, would have met the MTU without
# waiting. So: one packet waited, one met the connection's MTU (rc_tx_too_big), and once A's
# RC sends have completed, none went over A's connection but identity echoes (B proves A's
# connection, docs/security.md): sends completed, read in the same ethtool -S as the echoes
# posted, are no more than those echoes.
check "... A's RC sends completed" wait_for 10 rc_drained A icm0
snap held_end A:icm0
# the increase of counter $1 from snap held to snap held_end ("?" if either lacks it)
held_d() { awk -v k="$1" '$1 == "A:icm0" && $2 == k { v[FILENAME] = $3 }
    END { a = v["/tmp/snap.held"]; b = v["/tmp/snap.held_end"]; if (a == "" || b == "") print "?"; else print b - a }' /tmp/snap.held /tmp/snap.held_end; }
sends=$(held_d rc_tx_packets); echoes=$(held_d cm_id_echoes_sent)
check_delta "... one packet waited for that connection" held A:icm0 cm_tx_queued -eq 1
check_delta "... one packet was above the connection's MTU" held A:icm0 rc_tx_too_big -eq 1
check "... nothing but identity echoes went over the connection ($sends RC sends, $echoes echoes): the one that waited was the reply" \
    sh -c "[ '$sends' -le '$echoes' ]"
check_delta "... and was answered with frag-needed to A's stack" held A:icm0 tx_icmp_frag_needed -eq 1
check_delta "... not dropped as forwarded" held A:icm0 tx_drop_too_big -eq 0
check_output "A's route to B learned PMTU 32380 from it" 'mtu 32380' ns_ip A route get 10.0.2.2
check "B's next pings of 40000 are answered (A fragments its replies at the PMTU)" ns_ping_all B 10.0.2.1 2 -M dont -s 40000
check "B -> connected: MTU 32380 again" sh -c "/sbin/ip -n B link set icm1 type ipoib mode connected &&
    /sbin/ip -n B link show icm1 | grep -q 'mtu 32380 '"

# TCP: B advertises an MSS (advmss 60000) its Receive MTU cannot take; A's 60040-octet segments
# (DF, no TSO in connected mode) are answered with frag-needed and TCP lowers its segments.
ns_ip A route flush cache
check "B: route advertising MSS 60000" ns_ip B route replace 10.0.2.0/24 dev icm1 advmss 60000
check "iperf3 server in B" iperf3_server B 5201
snap tcp A:icm0
check_output "iperf3 A->B completes over the smaller connection MTU" 'receiver' ns_exec A iperf3 -c 10.0.2.2 -t 3 -f m
check_delta "... after ICMP frag-needed" tcp A:icm0 tx_icmp_frag_needed -ge 1
cm_ctrs A icm0
check "kernel log clean" dmesg_clean
