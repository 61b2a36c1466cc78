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
# ring held at exactly one buffer (nonsrq_min_recv=nonsrq_max_recv=1). Each transfer must
# complete within a time limit of its own (XFER_LIMIT, well within the scenario's): one that
# stalls fails its check, saying what each end is missing, and the next one runs.
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
plan 36

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
# XFER_LIMIT: the seconds one transfer may take, from its listener's start until both nc have
# exited. A clean stock run takes 1.3-2.2 s a transfer (the nosrq variant, whose one-buffer
# rings make the MTU 2044 ones wait on RNR retries, up to 17 s: it sets 60). Past the limit
# the transfer fails with what each end is missing, whatever is left of it is killed and the
# next one starts: a transfer that stalls costs its limit, not the scenario's.
XFER_LIMIT=${XFER_LIMIT:-30}
# now_cs: uptime in hundredths of a second
now_cs() { _u=$(cut -d' ' -f1 /proc/uptime); echo $(( ${_u%.*} * 100 + 1${_u#*.} - 100 )); }
# running PID...: one of them still runs (a child that exited but is not reaped yet is a zombie)
running() {
    for _rp in "$@"; do
        case $(cut -d' ' -f3 "/proc/$_rp/stat" 2>/dev/null) in ''|Z|X) ;; *) return 0 ;; esac
    done
    return 1
}
# until_cs DEADLINE cmd...: poll cmd every 0.2 s until it succeeds, or 1 once now_cs reaches DEADLINE
until_cs() {
    _uc=$1; shift
    while ! "$@" >/dev/null 2>&1; do
        [ "$(now_cs)" -ge "$_uc" ] && return 1
        sleep 0.2
    done
    return 0
}
# ns_procs NS...: "PID COMM" of every process in these network namespaces
ns_procs() { for _pn in "$@"; do for _np in $(ip netns pids $_pn 2>/dev/null); do echo "$_np $(cat /proc/$_np/comm 2>/dev/null)"; done; done; }
# xfer_kill NS NS PID...: SIGKILL every process in the two namespaces (the transfer's nc) and
# the PIDs (the writers, the shells around nc); prints what it killed; fails if any of them is
# still there 5 s later
xfer_kill() {
    _kn="$1 $2"; shift 2
    _kl=$(for _n in $_kn; do ns_procs $_n | sed "s/^/$_n:/"; done)
    for _n in $_kn; do for _np in $(ip netns pids $_n); do kill -9 $_np 2>/dev/null; done; done
    for _np in "$@"; do running $_np && { echo "$_np $(cat /proc/$_np/comm 2>/dev/null)"; kill -9 $_np 2>/dev/null; }; done
    echo "$_kl"
    xfer_gone() { [ -z "$(ns_procs $_kn)" ] && ! running "$@"; }
    wait_for 5 xfer_gone "$@" && return 0
    echo "still running: $(ns_procs $_kn | tr '\n' ' ')"; return 1
}
# xfer X IPX Y PORT LABEL: X listens on PORT, Y connects, and each writes its /tmp/data.N into
# the one TCP connection at once (fifos hold both stdins open until both ends have all
# SIZE bytes, since busybox nc quits at its stdin's EOF). Checked: the transfer completed
# within XFER_LIMIT (else what each end is missing, and nothing of it left running); then,
# only if it did, the digests of what each received against the other's data.
xfer() {
    _x=$1 _ix=$2 _y=$3 _p=$4 _l=$5
    rm -f /tmp/got.$_x /tmp/got.$_y /tmp/in.$_x /tmp/in.$_y
    mkfifo /tmp/in.$_x /tmp/in.$_y
    _t0=$(now_cs); _end=$((_t0 + XFER_LIMIT * 100))
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
    # both written and both received, or both nc gone (the connection failed: nothing more
    # comes); then closing the fifos ends both nc
    xfer_settled() { { ! running $_w1 $_w2 && got_all $_x $_y; } || ! running $_lp $_cp; }
    until_cs $_end xfer_settled
    _st=writing; running $_w1 $_w2 || _st=receiving
    exec 8>&- 9>&-
    nc_gone() { ! running $_lp $_cp; }
    until_cs $_end nc_gone && _st=closed
    _dt=$(($(now_cs) - _t0)); _dt=$((_dt / 100)).$((_dt / 10 % 10))
    _nx=$(size_of /tmp/got.$_x) _ny=$(size_of /tmp/got.$_y)
    _got="$_x got $_nx, $_y got $_ny of $SIZE bytes"
    if [ $_st = closed ] && got_all $_x $_y; then
        ok "$_l: both directions complete within $XFER_LIMIT s ($_dt s; $_got)"
    else
        if [ $_st = closed ]; then
            not_ok "$_l: both directions complete within $XFER_LIMIT s (both nc ended after $_dt s; $_got)"
        else
            not_ok "$_l: both directions complete within $XFER_LIMIT s (still $_st after $_dt s; $_got)"
        fi
        diag "$_l: $_x is missing $((SIZE - _nx)) bytes of $_y's, $_y is missing $((SIZE - _ny)) bytes of $_x's"
        [ -s /tmp/nc.$_x ] && diag "nc in $_x: $(cat /tmp/nc.$_x)"
        [ -s /tmp/nc.$_y ] && diag "nc in $_y: $(cat /tmp/nc.$_y)"
        _k=$(xfer_kill $_x $_y $_w1 $_w2 $_lp $_cp); _kr=$?
        diag "killed: $(printf '%s\n' "$_k" | grep . | tr '\n' ' ')"
        [ $_kr = 0 ] && diag "nothing of it left running in $_x, $_y or here" || diag "$_k"
    fi
    running $_w1 $_w2 $_lp $_cp || wait $_w1 $_w2 $_lp $_cp 2>/dev/null
    if [ $_st != closed ] || ! got_all $_x $_y; then
        skip "$_l: $_y -> $_x, every byte (sha256)" "the transfer did not complete"
        skip "$_l: $_x -> $_y, every byte (sha256)" "the transfer did not complete"
        return
    fi
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
