#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Payload integrity end to end over RC. Between two of ours the RC path carries TCP and UDP
# without their checksums (csum_free), so nothing but the driver protects the bytes: random
# data of known digest goes both directions at once over one TCP connection (busybox nc, the
# listener in A, B connecting), A's sends over its active QP and B's over the connection it
# accepted (bidir), and each end's sha256 of what it received must equal the sender's. At
# MTU 2044 (every segment on the copybreak path), 9000 (head + pages) and 65520 (64 KiB
# messages); then the same against the in-tree ipoib (C) at 2044 and 65520. Three softib
# hosts, ours on softib0 (icm0, A) and softib1 (icm1, B), the in-tree on softib2 (ib2, C).
# This file: SRQ everywhere; ipoib-cm-integrity-nosrq.sh sources it with srq=0 and every
# ring held at exactly one buffer (nonsrq_min_recv=nonsrq_max_recv=1).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3 host_srq=1,1,1
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1280
# timeout: 420
# kernels: stock
. /e2e/lib.sh
plan 31

SIZE=2000000
dmesg_mark integrity
check "icm0, icm1 (ours) and ib2 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1 && test -e /sys/class/net/ib2'
ip link set ib0 down 2>/dev/null; ip link set ib1 down 2>/dev/null
check "all three -> connected mode" sh -c 'for i in icm0 icm1 ib2; do echo connected > /sys/class/net/$i/mode || exit 1; done'
ns_trio icm0 icm1 ib2
up3() { has_carrier icm0 A && has_carrier icm1 B && has_carrier ib2 C; }
check "carrier on all three" wait_for 60 up3
check "random data for A, B and C (3 x $SIZE bytes)" sh -c "for n in A B C; do head -c $SIZE /dev/urandom > /tmp/data.\$n || exit 1; done"
for n in A B C; do eval "sum_$n=\$(sha256sum /tmp/data.$n | cut -d' ' -f1)"; done

mtu() { /sbin/ip -n A link set icm0 mtu "$1" && /sbin/ip -n B link set icm1 mtu "$1" && /sbin/ip -n C link set ib2 mtu "$1"; }
size_of() { if [ -e "$1" ]; then wc -c < "$1"; else echo 0; fi; }
got_all() { [ "$(size_of /tmp/got.$1)" -ge $SIZE ] && [ "$(size_of /tmp/got.$2)" -ge $SIZE ]; }
# xfer X IPX Y PORT LABEL: X listens on PORT, Y connects, and each writes its /tmp/data.N into
# the one TCP connection at once (fifos hold both stdins open until both ends have all
# SIZE bytes, since busybox nc quits at its stdin's EOF); then the digests of what each
# received against the other's data
xfer() {
    _x=$1 _ix=$2 _y=$3 _p=$4 _l=$5
    rm -f /tmp/got.$_x /tmp/got.$_y /tmp/in.$_x /tmp/in.$_y
    mkfifo /tmp/in.$_x /tmp/in.$_y
    ns_exec $_x busybox nc -l -p $_p < /tmp/in.$_x > /tmp/got.$_x 2>/tmp/nc.$_x &
    _lp=$!
    exec 8> /tmp/in.$_x
    listening() { ns_exec $_x ss -ltn | grep -q ":$_p "; }
    wait_for 10 listening
    ns_exec $_y busybox nc $_ix $_p < /tmp/in.$_y > /tmp/got.$_y 2>/tmp/nc.$_y &
    _cp=$!
    exec 9> /tmp/in.$_y
    cat /tmp/data.$_x >&8 & _w1=$!
    cat /tmp/data.$_y >&9 & _w2=$!
    wait $_w1 $_w2
    wait_for 120 got_all $_x $_y
    exec 8>&- 9>&-
    wait $_lp $_cp
    diag "$_l: $_x got $(size_of /tmp/got.$_x) bytes, $_y got $(size_of /tmp/got.$_y) of $SIZE"
    eval "_sx=\$sum_$_x _sy=\$sum_$_y"
    _gx=$(sha256sum /tmp/got.$_x | cut -d' ' -f1); _gy=$(sha256sum /tmp/got.$_y | cut -d' ' -f1)
    check "$_l: $_y -> $_x, every byte (sha256 ${_gx%${_gx#????????}} = sent ${_sy%${_sy#????????}})" test "$_gx" = "$_sy"
    check "$_l: $_x -> $_y, every byte (sha256 ${_gy%${_gy#????????}} = sent ${_sx%${_sx#????????}})" test "$_gy" = "$_sx"
}

# ---- ours <-> ours: A opens the connection, B answers over the one it accepted
check "warm-up ping A->B (A's active connection)" wait_for 30 ns_reach A 10.0.0.2 1
check "A: one connection, active, established" wait_for 10 cm_has icm0 1 'dir=active .* state=established '
check "B: one connection, passive, established" wait_for 10 cm_has icm1 1 'dir=passive .* state=established '
snap o ib:softib0 ib:softib1 A:icm0 B:icm1
port=7100
for m in 2044 9000 65520; do
    check "MTU $m on all three" mtu $m
    port=$((port + 1))
    xfer A 10.0.0.1 B $port "ours<->ours MTU $m"
done
check "B sent over the connection it accepted (bidir=1, no connection of its own)" cm_has icm1 1 'dir=passive .* state=established .* bidir=1 '
check_delta "RC carried it: softib0 received >= 3 x $SIZE bytes over RC" o ib:softib0 rc_rx_bytes -ge $((3 * SIZE))
check_delta "A: no QP left with nothing posted (rc_rx_left_empty)" o A:icm0 rc_rx_left_empty -eq 0
check_delta "B: no QP left with nothing posted (rc_rx_left_empty)" o B:icm1 rc_rx_left_empty -eq 0

# ---- ours <-> in-tree (C)
check "warm-up ping A->C" wait_for 30 ns_reach A 10.0.0.3 1
snap t ib:softib0 ib:softib2 A:icm0
# the in-tree peer fills TCP checksums, so a byte changed on its RC legs is caught and
# retransmitted by TCP and the digests still match: it shows as InCsumErrors instead
csum0=$(csumerr A)+$(csumerr C)
for m in 2044 65520; do
    check "MTU $m on all three" mtu $m
    port=$((port + 1))
    xfer A 10.0.0.1 C $port "ours<->in-tree MTU $m"
done
csum1=$(csumerr A)+$(csumerr C)
check "A and C: no TCP/UDP checksum errors on the in-tree legs (A+C: $csum0 before, $csum1 after)" test "$csum1" = "$csum0"
check_delta "RC carried it: softib0 received >= 2 x $SIZE bytes over RC" t ib:softib0 rc_rx_bytes -ge $((2 * SIZE))
check_delta "A: no QP left with nothing posted (rc_rx_left_empty)" t A:icm0 rc_rx_left_empty -eq 0
cm_show icm0 icm1
cm_ctrs A icm0; cm_ctrs B icm1
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
