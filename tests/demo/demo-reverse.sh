#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo, section 7: why ib_ipoib_cm exists. RFC 4755 lets either end of an RC connection
# send over it once it is established; the in-tree ib_ipoib without SRQ posts no receive on the
# connections it opens, so a packet sent back over one meets an RNR NAK, and its REQ allows no
# RNR retry: the connection dies. Three softib hosts without SRQ: "intree" (the in-tree
# ib_ipoib), "ours" (ib_ipoib_cm, one receive posted per connection at first) and "peer"
# (ib_ipoib_cm with its test knob send_accepted=1: it sends over the connections it accepted,
# as a third-party RFC 4755 peer may; cm_bidir=0, so neither end announces the shared
# connection and only the knob makes the peer send back). intree and then ours open a
# connection to the peer and ping it; ours then takes an iperf3 stream from the peer over that
# connection. The in-tree connection dies (RNR retry exceeded on the peer's send); ours carries
# everything, its receive ring grows, nothing is lost. Output as in demo.sh (scripts/demo runs
# both in one VM).
# load: ib_core
# load: ib_cm
# load: softib hosts=3 srq=0
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib1:1,softib2:1 ifname=icm%d cm_bidir=0
# mem: 1024
# timeout: 200
# kernels: stock
. /e2e/lib.sh
plan 20

L=10.0.7.1 O=10.0.7.2 P=10.0.7.3
N=10
dbg=/sys/kernel/debug/ib_ipoib_cm
conns=$dbg/icm0/connections pconns=$dbg/icm1/connections
ignore=/proc/sys/net/ipv4/icmp_echo_ignore_all

# pings NS ADDR: N pings from NS, shown as typed; $got = how many were answered
pings() {
    echo "$1# ping -c $N -i 0.2 -W 1 $2"
    _o=$(ip netns exec "$1" /usr/bin/ping -c $N -i 0.2 -W 1 "$2" 2>&1)
    printf '%s\n' "$_o" | sed 's/^/    /'
    got=$(printf '%s\n' "$_o" | sed -n 's/.* transmitted, \([0-9]*\) received.*/\1/p')
    got=${got:-0}
}
# accepted_from HWADDR: the peer's one connection to HWADDR is a passive one, established
accepted_from() {
    [ "$(grep -c "peer=$1 " "$pconns")" -eq 1 ] &&
        grep "peer=$1 " "$pconns" | grep -q 'dir=passive .* state=established '
}
# opened_silently HOST HWADDR: HOST opens its connection to the peer while the peer ignores
# pings, and the peer lists it established. A peer that had to answer before the connection
# is up on its side opens one of its own for the reply instead.
opened_silently() {
    on peer "echo 1 > $ignore     # the peer stays silent while the connection opens"
    on "$1" "ping -c 1 -W 1 $P"
    check "peer: accepted the connection $1 opened (established)" wait_for 20 accepted_from "$2"
    on peer "echo 0 > $ignore"
}
# host_up NS DEV ADDR: DEV into namespace NS, connected mode, MTU 65520, ADDR, up (shown)
host_up() {
    echo "vm# ip netns add $1; ip link set $2 netns $1"
    ns_create "$1" && ns_move "$2" "$1" &&
        on "$1" "echo connected > /sys/class/net/$2/mode && ip link set $2 mtu 65520 && ip addr add $3/24 dev $2 && ip link set $2 up"
}
carriers() { has_carrier ib0 intree && has_carrier icm0 ours && has_carrier icm1 peer; }

dmesg_mark reverse
section "7. Why this driver exists: a peer that answers over the connection it accepted"
note "RFC 4755 lets either end send over an RC connection once it is established. The in-tree"
note "ib_ipoib, on an HCA without SRQ, posts no receive buffer on the connections it opens: a"
note "packet sent back over one meets an RNR NAK, and the in-tree REQ allows no RNR retry, so the"
note "connection dies. ib_ipoib_cm posts at least one receive on every connection it owns."
note "A new fabric: three softib hosts, all without SRQ (softib srq=$(cat /sys/module/softib/parameters/srq)):"
note "  intree  $L  ib0   the in-tree ib_ipoib (softib0)"
note "  ours    $O  icm0  ib_ipoib_cm (softib1)"
note "  peer    $P  icm1  ib_ipoib_cm (softib2) with send_accepted=1: it sends over connections"
note "                    it accepted, as a third-party RFC 4755 implementation may"
note "send_accepted is a TEST KNOB of ib_ipoib_cm (debugfs), set here only to play that peer;"
note "cm_bidir=0 (module parameter): neither end announces the shared connection, so only the"
note "knob makes the peer send back. (The in-tree driver binds every port: its ib1, ib2 stay down.)"
three() { test -e /sys/class/net/ib0 && test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1; }
check "ib0 (in-tree), icm0 and icm1 (ib_ipoib_cm) exist" wait_for 30 three
addr_l=$(cat /sys/class/net/ib0/address) addr_o=$(cat /sys/class/net/icm0/address)
if on_kernel peer "echo 1 > $dbg/icm1/send_accepted"; then ok "peer: test knob send_accepted=1"
else not_ok "peer: test knob send_accepted=1"; fi
if host_up intree ib0 $L && host_up ours icm0 $O && host_up peer icm1 $P; then ok "three hosts set up"
else not_ok "three hosts set up"; fi
check "carrier on all three" wait_for 60 carriers

section "7a. The in-tree ib_ipoib (no SRQ) opens a connection to the peer"
snap a ib:softib0 ib:softib2 peer:icm1
opened_silently intree "$addr_l"
pings intree $P; got_l=$got
on peer "ethtool -S icm1 | grep -E ' (cm_accepted|cm_rnr_retry_exceeded|cm_fall_backs|cm_tx_fallback_ud):'"
acc_l=$(delta a peer:icm1 cm_accepted) exc_l=$(delta a ib:softib2 rnr_retry_exceeded)
dead_l=$(delta a ib:softib0 retry_exceeded) ud_l=$(delta a peer:icm1 cm_tx_fallback_ud)
note "intree opened $acc_l connections to the peer; the peer's first reply over each met an empty"
note "receive queue: $exc_l sends failed with RNR retry exceeded (softib2), and intree's next sends"
note "to the dead QP failed $dead_l times (retry exceeded, softib0) before it reconnected. The peer,"
note "being ib_ipoib_cm, sent $ud_l packets over UD meanwhile (cm_tx_fallback_ud): the replies that came."
check "the peer's reply over the accepted connection: RNR retry exceeded ($exc_l)" test "${exc_l:-0}" -ge 1
check_delta "... counted by the peer" a peer:icm1 cm_rnr_retry_exceeded -ge 1
check "intree lost replies: $got_l of $N answered" test "$got_l" -lt $N

section "7b. ib_ipoib_cm (no SRQ) opens a connection to the same peer"
snap b ib:softib2 ours:icm0 peer:icm1
opened_silently ours "$addr_o"
on_kernel ours "cat $conns"
check "ours: one connection, active, one receive posted (rx_size=1)" \
    cm_has icm0 1 'dir=active .* state=established .* rx_posted=1 rx_size=1 '
pings ours $P; got_o=$got
check "ours: $got_o of $N answered" test "$got_o" -eq $N
if on ours "ping -c 3 -i 0.2 -W 2 -s 60000 $P"; then ok "ping -s 60000 ours -> peer, replies over the accepted connection"
else not_ok "ping -s 60000 ours -> peer"; fi
check "iperf3 server on the peer" iperf3_server peer 5201
note "the peer sends a TCP stream to ours over the connection it accepted (iperf3 -R):"
if iperf_shown ours $P 3 rate -R; then ok "iperf3 peer -> ours: $rate"; else not_ok "iperf3 peer -> ours"; fi
on_kernel ours "cat $conns"
rx=$(cm_field icm0 'dir=active' rx) size=$(cm_field icm0 'dir=active' rx_size)
grown=$(cm_field icm0 'dir=active' rx_grown)
check "ours: still one connection, the active one, and it received the peer's stream (rx=$rx)" \
    sh -c "grep -q 'dir=active .* state=established ' $conns && test \$(wc -l < $conns) -eq 1 && test ${rx:-0} -ge 100"
check "ours: the receive ring grew from 1 to $size buffers (rx_grown=$grown)" test "${grown:-0}" -ge 1
on ours "ethtool -S icm0 | grep -E ' (rc_rx_packets|rc_rx_grown|rc_rx_left_empty):'"
check_delta "ours: no receive queue ever left empty" b ours:icm0 rc_rx_left_empty -eq 0
check_deltas_eq "every RC message the peer sent, ours received" b peer:icm1 rc_tx_packets ours:icm0 rc_rx_packets
rnr_o=$(delta b ib:softib2 rnr_nak)
check_delta "the peer's sends: no RNR retry exceeded" b ib:softib2 rnr_retry_exceeded -eq 0
note "softib2: $rnr_o RNR NAKs while the ring grew from one buffer, each retried: ib_ipoib_cm's REP"
note "asks for unlimited RNR retries (cm_rnr_retry=7) where the in-tree REQ asks for none"
check "kernel log clean" dmesg_clean

section "Summary"
note "section 7: a peer that sends back over the connection it accepted (test knob send_accepted), no SRQ:"
note "  in-tree ib_ipoib: $got_l of $N pings answered; ${exc_l:-?} of its ${acc_l:-?} connections died (RNR retry exceeded)"
note "  ib_ipoib_cm:      $got_o of $N pings answered; iperf3 peer -> ours ${rate:-FAILED} over that connection;"
note "                    receive ring 1 -> ${size:-?} buffers, none left empty, no RNR retry exceeded"
if [ "$_tap_failed" = 0 ]; then note "all $_tap_n checks of section 7 passed"
else note "$_tap_failed of $_tap_n checks of section 7 FAILED (the [FAILED] lines above)"; fi
exit $(tap_status)
