#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode (RFC 4755), ours <-> the unmodified in-tree ib_ipoib over softib, SRQ (this
# file; ipoib-cm-interop-nosrq.sh sources it with srq=0): ours on softib0 (icm0, namespace A),
# in-tree on softib1 (ib1, namespace B). Each side initiating in turn (the other ignores echo
# requests, static neighbours: only one side sends unicast), asserted with softib's CM and
# per-transport counters and our debugfs connections file; then 60000-byte pings IPv4 and
# IPv6 both ways and iperf3 TCP both ways over RC; interface down tears every connection down.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1 ifname=icm%d
# mem: 1024
# timeout: 420
# kernels: stock debug
. /e2e/lib.sh
plan 52

srq=$(cat /sys/module/softib/parameters/srq)
diag "softib srq=$srq"
conns=/sys/kernel/debug/ib_ipoib_cm/icm0/connections
# conn_lines DIR STATE: how many connections of our side have that direction and state
conn_lines() { grep -c "^dir=$1 .* state=$2 " "$conns"; }
# one_conn DIR STATE FIELD_ERE: exactly one such connection, and its line matches the ERE
one_conn() { [ "$(conn_lines "$1" "$2")" -eq 1 ] && grep "^dir=$1 " "$conns" | grep -Eq -- "$3"; }
# n_conns N [STATE]: the file lists exactly N connections (all in STATE when given)
ctr_eq() { _v=$(ctr "$1" "$2" "$3") && [ "$_v" -eq "$4" ]; }
# neg_legacy TAG: since snapshot TAG our end negotiated what an in-tree peer offers: no capability
# block, so neither bidir nor checksum-free, and the Linux service ID (ethtool cm_neg_*)
neg_legacy() {
    diag "cm_neg_* +: bidir $(delta $1 A:icm0 cm_neg_bidir) oneway $(delta $1 A:icm0 cm_neg_oneway) no_caps $(delta $1 A:icm0 cm_neg_no_caps) csum_free $(delta $1 A:icm0 cm_neg_csum_free) rfc_sid $(delta $1 A:icm0 cm_neg_rfc_sid) mtu_capped $(delta $1 A:icm0 cm_neg_mtu_capped)"
    delta_eq $1 A:icm0 cm_neg_no_caps 1 && delta_eq $1 A:icm0 cm_neg_bidir 0 &&
        delta_eq $1 A:icm0 cm_neg_csum_free 0 && delta_eq $1 A:icm0 cm_neg_rfc_sid 0
}
n_conns() { [ "$(wc -l < "$conns")" -eq "$1" ] && { [ -z "$2" ] || [ "$(grep -c " state=$2 " "$conns")" -eq "$1" ]; }; }
dmesg_mark cm
check "icm0 (ours) and ib1 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/ib1'
ip link set ib0 down 2>/dev/null
check_output "ours announces the RC flag (0x80) in its address, in datagram mode too" '^80:' cat /sys/class/net/icm0/address
check "icm0 -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode'
check "ib1 -> connected mode" sh -c 'echo connected > /sys/class/net/ib1/mode'
ns_create A B
ns_move icm0 A && ns_move ib1 B
ns_addr A icm0 10.0.1.1/24 && ns_addr B ib1 10.0.1.2/24
ns_ip A -6 addr add fd01::1/64 dev icm0 nodad; ns_ip B -6 addr add fd01::2/64 dev ib1 nodad
check "MTU 65520 on both" sh -c '/sbin/ip -n A link set icm0 mtu 65520 && /sbin/ip -n B link set ib1 mtu 65520'
both_up() { has_carrier icm0 A && has_carrier ib1 B; }
check "carrier on both" wait_for 60 both_up
addr_a=$(ns_exec A cat /sys/class/net/icm0/address); addr_b=$(ns_exec B cat /sys/class/net/ib1/address)
# Static neighbours: no ARP/ND exchange. Ours sends ARP and ND replies over UD (RFC 4755 §7),
# the in-tree B sends ARP over UD but an ND reply over RC (it connects for it: in-tree defect
# L8), which would add a connection of B's to what the checks count.
check "static neighbours (v4 + v6)" sh -c "/sbin/ip -n A neigh replace 10.0.1.2 lladdr $addr_b nud permanent dev icm0 && /sbin/ip -n B neigh replace 10.0.1.1 lladdr $addr_a nud permanent dev ib1 && /sbin/ip -n A -6 neigh replace fd01::2 lladdr $addr_b nud permanent dev icm0 && /sbin/ip -n B -6 neigh replace fd01::1 lladdr $addr_a nud permanent dev ib1"
# The path record is resolved by the first packets (they go over UD meanwhile): warm both
# sides' paths with small pings, nobody answering, so nothing else is learnt.
ns_exec A sh -c 'echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_all'
ns_exec B sh -c 'echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_all'

# Nobody answers these pings, so each run of 10 lasts its 9 intervals plus the 1 s -W after
# the last. On stock every one of the 10 went over RC at 0.5 s apart too (the first waits for
# the connection): 0.2 s saves ~2.7 s a run; the debug kernel keeps 0.5 s.
ping_i=$(by_kernel 0.2 0.5)

# ---- 1. the in-tree side initiates: its REQ reaches our listener, we accept (passive)
snap p ib:softib0 ib:softib1 A:icm0
ns_exec B /usr/bin/ping -c 10 -i "$ping_i" -W 1 -s 60000 10.0.1.1 >/dev/null 2>&1
check_delta "in-tree initiated: softib1 sent a REQ" p ib:softib1 cm_tx_req -ge 1
check_delta "... we sent the REP" p ib:softib0 cm_tx_rep -ge 1
check_delta "... softib1 sent the RTU" p ib:softib1 cm_tx_rtu -ge 1
check_delta "we initiated nothing (no REQ from softib0)" p ib:softib0 cm_tx_req -eq 0
check_delta "60000-byte pings arrived over RC at softib0" p ib:softib0 rc_rx_packets -ge 4
check_delta "... and were delivered by our passive connection" p A:icm0 rc_rx_packets -ge 4
check_delta "ethtool: one connection accepted" p A:icm0 cm_accepted -eq 1
check_delta "ethtool: it negotiated one-way (counted once, at established)" p A:icm0 cm_neg_oneway -eq 1
check "... no capability block, not bidir, not checksum-free, Linux service ID" neg_legacy p
check "debugfs: one passive connection established, rx_posted >= 1" one_conn passive established ' rx_posted=[1-9]' 
diag "$(cat $conns)"

# ---- 2. we initiate: our REQ to the in-tree listener (its side ignores echo now)
ns_exec A sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_all'
snap a ib:softib0 ib:softib1 A:icm0
ns_exec A /usr/bin/ping -c 10 -i "$ping_i" -W 1 -s 60000 10.0.1.2 >/dev/null 2>&1
check_delta "we initiated: softib0 sent a REQ" a ib:softib0 cm_tx_req -ge 1
check_delta "... softib1 sent the REP" a ib:softib1 cm_tx_rep -ge 1
check_delta "... we sent the RTU" a ib:softib0 cm_tx_rtu -ge 1
check_delta "60000-byte pings left over RC (softib1 received them)" a ib:softib1 rc_rx_packets -ge 4
check_delta "... through our active connection's send ring" a A:icm0 rc_tx_packets -ge 4
check_delta "ethtool: one connection opened" a A:icm0 cm_opened -eq 1
check_delta "ethtool: it negotiated one-way (counted once, at established)" a A:icm0 cm_neg_oneway -eq 1
check "... no capability block in the REP, not bidir, not checksum-free, Linux service ID" neg_legacy a
check "debugfs: one active connection established, mtu=65520" one_conn active established ' mtu=65520 ' 
check_rc "never sent over the connection accepted from the in-tree peer (no kCapBidir): bidir=0" 1 grep -q '^dir=passive.* bidir=1 ' $conns
ptx=$(cm_field icm0 'dir=passive' tx)
check "... and nothing sent over it: tx=${ptx:-none}" test "${ptx:-x}" = 0
diag "$(cat $conns)"

# ---- 3. both ways, IPv4 and IPv6, 60000 bytes
ns_exec B sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_all'
snap b ib:softib0 ib:softib1
check "ping -s 60000 ours->in-tree" ns_ping_all A 10.0.1.2 5 -s 60000
check "ping -s 60000 in-tree->ours" ns_ping_all B 10.0.1.1 5 -s 60000
check "ping6 -s 60000 ours->in-tree" ns_ping_all A fd01::2 5 -6 -s 60000
check "ping6 -s 60000 in-tree->ours" ns_ping_all B fd01::1 5 -6 -s 60000
check_delta "no UD message of that size: < 64 KB of UD received by softib1" b ib:softib1 ud_rx_bytes -lt 65536
check_delta "no UD message of that size: < 64 KB of UD received by softib0" b ib:softib0 ud_rx_bytes -lt 65536
check_delta "no new connection (the two are reused)" b ib:softib0 cm_tx_req -eq 0

# ---- 4. iperf3 both ways over RC
snap i ib:softib0 ib:softib1 A:icm0
check "iperf3 server in B" iperf3_server B 5201
# 2 s each on stock (hundreds of MB), 5 s on the debug kernel
isecs=$(by_kernel 2 5)
check_output "iperf3 TCP ours->in-tree" 'receiver' ns_exec A iperf3 -c 10.0.1.2 -t "$isecs" -f m
check_output "iperf3 TCP in-tree->ours (-R)" 'receiver' ns_exec A iperf3 -c 10.0.1.2 -t "$isecs" -f m -R
# Volumes, not rates (the debug kernel under TCG moves a few MB in 5 s): both directions
# carried megabytes over RC and UD stayed at the size of the odd multicast.
check_delta "iperf3 rode RC: softib1 received >= 1 MB over RC" i ib:softib1 rc_rx_bytes -ge 1000000
check_delta "... and so did softib0" i ib:softib0 rc_rx_bytes -ge 1000000
check_delta "... not UD (softib1: < 256 KB of UD)" i ib:softib1 ud_rx_bytes -lt 262144
check "A: no RC send in flight" wait_for 10 rc_drained A icm0
check_deltas_eq "every RC message softib0 placed for us, our driver received" i ib:softib0 rc_rx_packets A:icm0 rc_rx_packets
check_delta "no CQ overflow on softib0" i ib:softib0 cq_overflow -eq 0
check "debugfs: still exactly two connections, both established" n_conns 2 established
check_delta "no send-watchdog teardown" i A:icm0 cm_watchdog_teardowns -eq 0
check_delta "no reconnect or fall-back during the run" i A:icm0 cm_fall_backs -eq 0
diag "$(cat $conns)"

# ---- 5. interface down: every connection closes through its fence
check "icm0 down" ns_ip A link set icm0 down
check "debugfs: no connection left" n_conns 0
check "closed with the fence, none forced" ctr_eq A icm0 cm_forced_destroys 0
check "... both connections counted closed" ctr_ge A icm0 cm_closed 2
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S icm0 | grep -E '^ +(cm_|rc_)' | grep -v ': 0$')"
diag "$(dmesg_since_mark | grep -E 'ib_ipoib_cm|softib|icm0|ib1' | tail -n 30)"
ns_delete_all
exit $(tap_status)
