#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: two simulated hosts on the softib fabric, each in its own network namespace,
# ib_ipoib_cm on both. Datagram mode first (RFC 4391: UD, MTU 2044), then connected mode
# (RFC 4755: one RC connection, MTU 65520): in each mode the link as `ip -d link` shows it,
# a 60000-byte ping and an iperf3 TCP run; then the connection table (debugfs) and a summary
# (sections 1-6; section 7 is demo-reverse.sh, run after it in the same VM).
# Every step is a TAP check, so a step that fails fails `make demo` (scripts/demo).
# The output is for a person: headed sections, the commands as one would type them on the
# host ("hostA# ..."), their output indented under them (tests/e2e/lib.sh: on, step, section).
# load: ib_core
# load: ib_cm
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1
# mem: 1024
# timeout: 200
# kernels: stock
. /e2e/lib.sh
plan 31

A=192.168.77.1 B=192.168.77.2
dbg=/sys/kernel/debug/ib_ipoib_cm
IPERF_TIME=5

# all_of CMD...: each CMD (a string, run in this shell) in order, until one fails
all_of() { for _c in "$@"; do eval "$_c" || { echo "failed: $_c"; return 1; }; done; }
mode_of() { ip -n "$1" -d link show "$2" | sed -n 's/.* ipoib .*mode \([a-z]*\) .*/\1/p'; }
mtu_of() { ip -n "$1" -o link show "$2" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }
# link_is HOST DEV MODE MTU: `ip -d link` shows that mode and MTU
link_is() {
    _m=$(mode_of "$1" "$2") _u=$(mtu_of "$1" "$2")
    [ "$_m" = "$3" ] && [ "$_u" = "$4" ] || { echo "$1 $2: mode '$_m' mtu '$_u', want $3 $4"; return 1; }
}
# 60000 bytes of ICMP payload: 30 IP fragments over UD, one packet over RC
bigping() { on hostA "ping -c 3 -i 0.2 -W 2 -s 60000 $B"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

dmesg_mark demo
section "1. The fabric: softib, two simulated InfiniBand hosts on one in-memory wire, with an SA"
for d in $(ib_devices); do
    note "$d port 1: $(cat /sys/class/infiniband/$d/ports/1/state), LID $(cat /sys/class/infiniband/$d/ports/1/lid), GID $(cat /sys/class/infiniband/$d/ports/1/gids/0)"
done
two_netdevs() { test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1; }
check "ib_ipoib_cm made ib0 (softib0) and ib1 (softib1)" wait_for 20 two_netdevs

section "2. Two hosts: ib0 in namespace hostA ($A), ib1 in hostB ($B)"
# one VM, two "hosts": each namespace gets one port's netdev (shown as typed, on the VM)
echo "vm# ip netns add hostA; ip netns add hostB; ip -n hostA link set lo up; ip -n hostB link set lo up"
echo "vm# ip link set ib0 netns hostA; ip link set ib1 netns hostB"
check "namespaces hostA and hostB, ib0 in hostA, ib1 in hostB" all_of \
    'ns_create hostA hostB' 'ns_move ib0 hostA' 'ns_move ib1 hostB'
step "hostA: address and link up" hostA "ip addr add $A/24 dev ib0 && ip link set ib0 up"
step "hostB: address and link up" hostB "ip addr add $B/24 dev ib1 && ip link set ib1 up"
both_carriers() { has_carrier ib0 hostA && has_carrier ib1 hostB; }
check "carrier on both (each joined the broadcast group through the SA)" wait_for 60 both_carriers

section "3. Datagram mode (RFC 4391): unreliable datagrams, MTU 2044"
on hostA "ip -d link show ib0"
check "ib0 is in datagram mode, MTU 2044" link_is hostA ib0 datagram 2044
check "ib1 is in datagram mode, MTU 2044" link_is hostB ib1 datagram 2044
snap dg ib:softib0 ib:softib1
step "ping hostA -> hostB" hostA "ping -c 3 -i 0.2 $B"
if bigping; then dg_ping=ok; ok "ping -s 60000 in datagram mode (IP fragments)"; else dg_ping=FAILED; not_ok "ping -s 60000 in datagram mode"; fi
check "iperf3 server on hostB" iperf3_server hostB 5201
if iperf_shown hostA $B $IPERF_TIME dg_rate; then ok "iperf3 TCP hostA -> hostB, datagram mode: $dg_rate"
else not_ok "iperf3 TCP in datagram mode"; fi
dg_ud=$(delta dg ib:softib1 ud_rx_bytes) dg_rc=$(delta dg ib:softib1 rc_rx_bytes)
note "softib1 received $(mib "$dg_ud") as UD datagrams, $(mib "$dg_rc") over RC"
check "datagram mode used UD only (no RC bytes)" test "$dg_rc" -eq 0

section "4. Connected mode (RFC 4755): reliable connections, MTU 65520"
step "hostA: switch ib0 to connected mode" hostA "echo connected > /sys/class/net/ib0/mode"
step "hostB: switch ib1 to connected mode" hostB "echo connected > /sys/class/net/ib1/mode"
on hostA "cat /sys/class/net/ib0/mode"
on hostA "ip -d link show ib0"
check "ib0 is in connected mode, MTU 65520" link_is hostA ib0 connected 65520
check "ib1 is in connected mode, MTU 65520" link_is hostB ib1 connected 65520
snap cm ib:softib0 ib:softib1 hostA:ib0 hostB:ib1
# the first unicast packet opens the connection (REQ/REP/RTU through ib_cm) and waits for it
step "ping hostA -> hostB (opens the RC connection)" hostA "ping -c 3 -i 0.2 -W 5 $B"
if bigping; then cm_ping=ok; ok "ping -s 60000 in connected mode (one RC message each)"; else cm_ping=FAILED; not_ok "ping -s 60000 in connected mode"; fi
if iperf_shown hostA $B $IPERF_TIME cm_rate; then ok "iperf3 TCP hostA -> hostB, connected mode: $cm_rate"
else not_ok "iperf3 TCP in connected mode"; fi
cm_ud=$(delta cm ib:softib1 ud_rx_bytes) cm_rc=$(delta cm ib:softib1 rc_rx_bytes)
note "softib1 received $(mib "$cm_rc") over RC, $(mib "$cm_ud") as UD datagrams (ARP, multicast)"
cm_path="over RC"
check "connected mode carried the traffic over RC (>= 1 MiB)" test "$cm_rc" -ge 1048576 || cm_path="NOT over RC"
check "... not over UD (< 256 KiB of UD)" test "$cm_ud" -lt 262144 || cm_path="NOT over RC"

section "5. The connection table (debugfs) and the CM counters (ethtool -S)"
on_kernel hostA "cat $dbg/ib0/connections"
on_kernel hostB "cat $dbg/ib1/connections"
# one_conn FILE: exactly one RC QP, established, carrying both directions (bidir=1: both
# ends are ours and announce it, so the connection hostA opened also carries hostB's replies)
one_conn() { [ "$(wc -l < "$1")" -eq 1 ] && grep -q ' state=established .* bidir=1 ' "$1" || { cat "$1"; return 1; }; }
n_conn=$(wc -l < $dbg/ib0/connections)
check "hostA: one connection, established, bidir=1" one_conn $dbg/ib0/connections
check "hostB: one connection, established, bidir=1" one_conn $dbg/ib1/connections
on hostA "ethtool -S ib0 | grep -E ' (cm_opened|cm_accepted|rc_tx_packets|rc_rx_packets):'"
check_delta "hostA opened one connection" cm hostA:ib0 cm_opened -eq 1
check_delta "hostB accepted one connection" cm hostB:ib1 cm_accepted -eq 1
check_deltas_eq "every RC message hostA sent, hostB received" cm hostA:ib0 rc_tx_packets hostB:ib1 rc_rx_packets

section "6. Back to datagram mode"
step "hostA: switch ib0 to datagram mode" hostA "echo datagram > /sys/class/net/ib0/mode"
step "hostB: switch ib1 to datagram mode" hostB "echo datagram > /sys/class/net/ib1/mode"
check "ib0 back in datagram mode, MTU 2044" link_is hostA ib0 datagram 2044
step "ping hostA -> hostB in datagram mode again" hostA "ping -c 3 -i 0.2 -W 2 $B"
check "kernel log clean (no warning, no oops)" dmesg_clean

section "Summary"
note "two hosts on softib, ib_ipoib_cm on both (stock Debian kernel $(uname -r), qemu TCG)"
# mbit RATE: iperf3's "205 Mbits/sec" as "205 Mbit/s"; FAILED when there was none
mbit() { [ -n "$1" ] && echo "${1% Mbits/sec} Mbit/s" || echo FAILED; }
note "datagram mode  (UD, MTU 2044):  60000-byte ping $dg_ping, iperf3 TCP $(mbit "${dg_rate:-}")"
note "connected mode (RC, MTU 65520): 60000-byte ping $cm_ping, iperf3 TCP $(mbit "${cm_rate:-}") ($cm_path)"
[ -n "${dg_rate:-}" ] && [ -n "${cm_rate:-}" ] &&
    note "connected / datagram: $(awk -v c="${cm_rate%% *}" -v d="${dg_rate%% *}" 'BEGIN { if (d > 0) printf "%.1fx", c / d; else printf "n/a" }') in this run"
note "RC connections on hostA in connected mode: $n_conn (the table in section 5)"
if [ "$_tap_failed" = 0 ]; then note "all $_tap_n checks of sections 1-6 passed"
else note "$_tap_failed of $_tap_n checks of sections 1-6 FAILED (the [FAILED] lines above)"; fi
note "throughput is a software fabric in an emulated VM, not hardware: compare the modes, not the numbers"
exit $(tap_status)
