#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode without the TCP/UDP checksum between our peers (kCapCsumFree,
# docs/connected.md §9b), and with it everywhere else. softib hosts=3: ours on softib0 (icm0,
# namespace A) and softib1 (icm1, B), the in-tree ib_ipoib on softib2 (ib2, C; its ib0/ib1
# down). B also forwards: C's second address 10.0.8.3 is reached by A through B (a hairpin
# on B's icm1, redirects off), so what A sends unfilled is restored by B and leaves B towards
# a peer that did not negotiate kCapCsumFree.
# 1. ethtool -k tells the truth in each mode (datagram: no checksum/SG; connected: SG, and
#    IPv4/IPv6 checksum + rx-checksumming [fixed] only with cm_csum_free=1).
# 2. ours <-> ours: iperf3 TCP both ways and UDP; with cm_csum_free=1 packets go unfilled
#    (rc_tx_csum_skipped > 0, rc_rx_csum_restored > 0), with 0 (ipoib-cm-csum-off.sh) none.
#    No drops, no marks where none was negotiated, no InCsumErrors.
# 3. ours <-> in-tree: iperf3 both ways and UDP; never skipped towards it (rc_tx_csum_skipped
#    +0), the in-tree side counts no Tcp/Udp InCsumErrors.
# 4. forwarded: A -> C's 10.0.8.3 through B: what B restored leaves B with a valid checksum
#    (filled by B, rc_tx_csum_filled; C's stack verifies it: iperf3 completes, C's
#    InCsumErrors +0). (A veth to another namespace would be the textbook case, but the
#    debug kernel has no veth; this path is the one where our own fill must happen.)
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 420
# kernels: stock debug
. /e2e/lib.sh
plan 46

free=$(cat /sys/module/ib_ipoib_cm/parameters/cm_csum_free)
diag "cm_csum_free=$free"
dmesg_mark csum
check "icm0, icm1 (ours) and ib2 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1 && test -e /sys/class/net/ib2'
ip link set ib0 down 2>/dev/null; ip link set ib1 down 2>/dev/null

# feat DEV NAME: the value ("on"/"off", "[fixed]" kept) of one `ethtool -k` line
feat() { ethtool -k "$1" | sed -n "s/^[[:space:]]*$2: //p"; }
check_output "datagram: tx-checksum-ipv4 off" '^off' feat icm0 tx-checksum-ipv4
check_output "datagram: scatter-gather off" '^off' feat icm0 scatter-gather
check_output "datagram: rx-checksumming off" '^off' feat icm0 rx-checksumming
check "all three -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode && echo connected > /sys/class/net/icm1/mode && echo connected > /sys/class/net/ib2/mode'
check_output "connected: scatter-gather on (head + fragments as SGEs)" '^on' feat icm0 scatter-gather
if [ "$free" = 1 ]; then
    check_output "connected, cm_csum_free=1: tx-checksum-ipv4 on" '^on' feat icm0 tx-checksum-ipv4
    check_output "... tx-checksum-ipv6 on" '^on' feat icm0 tx-checksum-ipv6
    check_output "... rx-checksumming on [fixed]" '^on \[fixed\]' feat icm0 rx-checksumming
else
    check_output "connected, cm_csum_free=0: tx-checksum-ipv4 off" '^off' feat icm0 tx-checksum-ipv4
    check_output "... tx-checksum-ipv6 off" '^off' feat icm0 tx-checksum-ipv6
    check_output "... rx-checksumming off [fixed]" '^off \[fixed\]' feat icm0 rx-checksumming
fi
check_output "never tx-checksum-ip-generic (HW_CSUM) nor TSO" '^off.*off' sh -c "ethtool -k icm0 | sed -n 's/^[[:space:]]*tx-checksum-ip-generic: //p; s/^tcp-segmentation-offload: //p' | tr '\n' ' '"

addr_a=$(cat /sys/class/net/icm0/address); addr_b=$(cat /sys/class/net/icm1/address); addr_c=$(cat /sys/class/net/ib2/address)
ns_create A B C
ns_move icm0 A && ns_move icm1 B && ns_move ib2 C
ns_addr A icm0 10.0.7.1/24 && ns_addr B icm1 10.0.7.2/24 && ns_addr C ib2 10.0.7.3/24
ns_ip A -6 addr add fd07::1/64 dev icm0 nodad; ns_ip B -6 addr add fd07::2/64 dev icm1 nodad
up3() { has_carrier icm0 A && has_carrier icm1 B && has_carrier ib2 C; }
check "carrier on all three" wait_for 60 up3
check "MTU 65520 on all three" sh -c '/sbin/ip -n A link set icm0 mtu 65520 && /sbin/ip -n B link set icm1 mtu 65520 && /sbin/ip -n C link set ib2 mtu 65520'
# Static neighbours: every pair knows the other's address (no ARP exchange to wait for; ARP
# goes over UD in connected mode).
check "static neighbours" sh -c "/sbin/ip -n A neigh replace 10.0.7.2 lladdr $addr_b nud permanent dev icm0 &&
    /sbin/ip -n A neigh replace 10.0.7.3 lladdr $addr_c nud permanent dev icm0 &&
    /sbin/ip -n B neigh replace 10.0.7.1 lladdr $addr_a nud permanent dev icm1 &&
    /sbin/ip -n C neigh replace 10.0.7.1 lladdr $addr_a nud permanent dev ib2 &&
    /sbin/ip -n A -6 neigh replace fd07::2 lladdr $addr_b nud permanent dev icm0 &&
    /sbin/ip -n B -6 neigh replace fd07::1 lladdr $addr_a nud permanent dev icm1"
# B forwards A's packets for 10.0.8.3 to C on the same link; no redirect lets A bypass B
check "C's 10.0.8.3 routed by A through B" sh -c "/sbin/ip -n C addr add 10.0.8.3/32 dev ib2 &&
    /sbin/ip -n A route add 10.0.8.3/32 via 10.0.7.2 && /sbin/ip -n B route add 10.0.8.3/32 via 10.0.7.3 &&
    /sbin/ip -n B neigh replace 10.0.7.3 lladdr $addr_c nud permanent dev icm1 &&
    /sbin/ip netns exec B sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward; echo 0 > /proc/sys/net/ipv4/conf/all/send_redirects; echo 0 > /proc/sys/net/ipv4/conf/icm1/send_redirects' &&
    /sbin/ip netns exec A sh -c 'echo 0 > /proc/sys/net/ipv4/conf/all/accept_redirects; echo 0 > /proc/sys/net/ipv4/conf/icm0/accept_redirects'"
check "warm-up A->B, A->C, A->10.0.8.3" wait_for 30 sh -c "/sbin/ip netns exec A /usr/bin/ping -c 1 -W 1 10.0.7.2 >/dev/null && /sbin/ip netns exec A /usr/bin/ping -c 1 -W 1 10.0.7.3 >/dev/null && /sbin/ip netns exec A /usr/bin/ping -c 1 -W 1 10.0.8.3 >/dev/null"

# UDP over RC loses nothing on the path (RC is reliable, RNR retried without limit): every
# datagram the receiver missed must be one its socket dropped with the buffer full
# (RcvbufErrors: the receiving iperf3 behind the sender, 24 % at 200 Mbit/s on stock under
# TCG; not the path, so not bounded).
# iperf NS ARGS...: an iperf3 client run, its summary as diagnostics; fails if iperf3 does.
# 2 s on stock (thousands of packets, where the checks ask for 100), 5 s on the debug kernel.
isecs=$(by_kernel 2 5)
iperf() { _ns=$1; shift; ip netns exec "$_ns" iperf3 -t "$isecs" -f m "$@" > /tmp/iperf.out 2>&1; _rc=$?; diag "$(tail -n 4 /tmp/iperf.out)"; return $_rc; }
# C's second server is bound to 10.0.8.3: a UDP reply from the first would leave C with the
# source address of C's route to A (10.0.7.3), which A's connected UDP socket refuses.
servers() { iperf3_server B 5201 && iperf3_server C 5201 && iperf3_server C 5202 -B 10.0.8.3; }
check "iperf3 servers in B, C (and C on 10.0.8.3)" servers

# ---- 2. ours <-> ours
# Counts, not rates: the debug kernel under TCG moves a few hundred 64 KiB packets in 5 s
# (759 seen), the stock one tens of thousands in 5 s (36537 skipped by A), over 10000 in 2 s;
# >= 100 says the path was taken, not how fast.
ea=$(csumerr A); eb=$(csumerr B)
snap o A:icm0 B:icm1
check "A->B TCP" iperf A -c 10.0.7.2
check "B->A TCP (-R)" iperf A -c 10.0.7.2 -R
udp_mark B
check "A->B UDP 200 Mbit/s, 8000-byte datagrams" iperf A -c 10.0.7.2 -u -b 200M -l 8000
check_udp_loss "... none lost on the path (only by B's full socket buffer)" /tmp/iperf.out "$(udp_counted B)" -
check "A->B TCP over IPv6" iperf A -c fd07::2
if [ "$free" = 1 ]; then
    check_delta "A sent TCP/UDP without the checksum" o A:icm0 rc_tx_csum_skipped -ge 100
    check_delta "B sent TCP without the checksum (acks, -R)" o B:icm1 rc_tx_csum_skipped -ge 100
    check_delta "B restored them" o B:icm1 rc_rx_csum_restored -ge 100
    check_delta "A restored them" o A:icm0 rc_rx_csum_restored -ge 100
else
    check_delta "cm_csum_free=0: A sent nothing unfilled" o A:icm0 rc_tx_csum_skipped -eq 0
    check_delta "... nor B" o B:icm1 rc_tx_csum_skipped -eq 0
    check_delta "... B restored nothing" o B:icm1 rc_rx_csum_restored -eq 0
    check_delta "... nor A" o A:icm0 rc_rx_csum_restored -eq 0
fi
check_delta "B: no marked packet it could not restore" o B:icm1 rc_rx_drop_csum -eq 0
check_delta "B: no mark from a connection that did not negotiate it" o B:icm1 rc_rx_csum_unexpected -eq 0
check_delta "A: no checksum failure on send" o A:icm0 rc_tx_drop_csum -eq 0
check_delta "A: TCP skbs posted as head + fragments (F4)" o A:icm0 rc_tx_gathered -ge 100
check_delta "... never linearized (softib's 32 SGEs suffice)" o A:icm0 rc_tx_linearized -eq 0
check "A and B: no Tcp/Udp InCsumErrors" sh -c "[ $(csumerr A) -eq $ea ] && [ $(csumerr B) -eq $eb ]"

# ---- 3. ours <-> in-tree (no capability block: never unfilled towards it)
ec=$(csumerr C)
snap t A:icm0
check "A->C TCP (in-tree receives)" iperf A -c 10.0.7.3
check "C->A TCP (-R)" iperf A -c 10.0.7.3 -R
udp_mark C
check "A->C UDP 200 Mbit/s, 8000-byte datagrams" iperf A -c 10.0.7.3 -u -b 200M -l 8000
check_udp_loss "... none lost on the path (only by C's full socket buffer)" /tmp/iperf.out "$(udp_counted C)" -
check_delta "nothing sent unfilled towards the in-tree peer" t A:icm0 rc_tx_csum_skipped -eq 0
check_delta "no mark from the in-tree peer (it writes 0 in the reserved field)" t A:icm0 rc_rx_csum_unexpected -eq 0
check_delta "... and nothing restored from it" t A:icm0 rc_rx_csum_restored -eq 0
check "in-tree C: no Tcp/Udp InCsumErrors" sh -c "[ $(csumerr C) -eq $ec ]"
diag "C InCsumErrors before $ec after $(csumerr C)"

# ---- 4. forwarded by B to C
ec=$(csumerr C)
snap f A:icm0 B:icm1
check "A->10.0.8.3 TCP through B" iperf A -c 10.0.8.3 -p 5202
udp_mark C
# B forwards into its connection to C: what exceeds that connection's bound and its own queue
# is dropped there and counted (cm_tx_drop_queue_full: a peer never stops B's netdev queue).
# A silent loss on A's connection to B fails it: one RC receive in four dropped uncounted (a
# planted fault) lost 878 of 3092 datagrams with 125 drops counted.
snap u B:icm1
check "A->10.0.8.3 UDP through B" iperf A -c 10.0.8.3 -p 5202 -u -b 100M -l 8000
check_udp_loss "... none lost on the path (only by C's full socket buffer or B's counted queue to C)" \
    /tmp/iperf.out "$(( $(udp_counted C) + $(delta u B:icm1 cm_tx_drop_queue_full) ))" -
if [ "$free" = 1 ]; then
    check_delta "B restored what A sent unfilled" f B:icm1 rc_rx_csum_restored -ge 100
    check_delta "B filled it on the way out to the in-tree peer" f B:icm1 rc_tx_csum_filled -ge 100
else
    check_delta "cm_csum_free=0: B restored nothing" f B:icm1 rc_rx_csum_restored -eq 0
    check_delta "... and had nothing to fill (the stack did)" f B:icm1 rc_tx_csum_filled -eq 0
fi
check "C verified every forwarded checksum: no InCsumErrors" sh -c "[ $(csumerr C) -eq $ec ]"
diag "C InCsumErrors before $ec after $(csumerr C)"
cm_ctrs A icm0
cm_ctrs B icm1
diag "A: $(ip netns exec A ethtool -S icm0 | grep -E 'csum|linearize' | tr -s ' \n' ' ')"
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
