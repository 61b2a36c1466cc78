#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm, ethtool -g/-G: the UD receive and send ring sizes, ours <-> ours over softib.
#   - -G while up (datagram): the sizes change, one log line, counted (ring_resizes); the
#     interface stays up (IFF_UP, its addresses), gets a new UD QP and so a new QPN in its
#     link-layer address (flags and GID kept); every ping after the resize is answered, the
#     peer has the new address (from A's ARP request: A's neighbours went with the old address)
#     and its pings to A are answered; the old QP's posted receives are flushed (rx_flushed)
#     and none is an error;
#   - bad values: below the minimum (rx 1, tx 64: EINVAL from the driver, one log line, the
#     reason in the netlink error), above the maximum (rx 16384: EINVAL from the ethtool core,
#     no driver line); nothing changes (sizes, address, ring_resizes), and each refusal of
#     the driver is counted (ring_resize_errors);
#   - a size that is not a power of two is rounded up, with one log line; the same sizes
#     again change nothing (no new QP);
#   - -G while down, then up: pings answered;
#   - a failed resize (softib fail_create_qp 2: neither the new UD QP nor one of the old sizes
#     can be created): ENOMEM, counted (ring_resize_errors); the next -G builds a QP and opens
#     the interface again (it is still IFF_UP), and the one after it too: NAPI is enabled and
#     disabled in pairs whatever the failure left;
#   - -G twice in a row while pings run, and twice while down: the pings after are answered;
#   - connected mode: -G while RC connections carry the pings; after it, 3000-byte pings
#     (RC) are all answered again.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 300
# tier: long
. /e2e/lib.sh
plan 66

lines() { dmesg_since_mark | grep -c 'ib_ipoib_cm'; }
one_line() { [ "$(dmesg_since_mark | grep -c -- "$1")" -eq 1 ]; }
etA() { ns_exec A ethtool "$@"; }
# cur KIND: the current RX or TX size of A's ib0
cur() { etA -g ib0 | sed -n '/Current/,$p' | sed -n "s/^$1:[[:space:]]*//p"; }
sizes() { [ "$(cur RX)" = "$1" ] && [ "$(cur TX)" = "$2" ] || { echo "rx $(cur RX) tx $(cur TX), want $1 $2"; return 1; }; }
stat() { etA -S ib0 | sed -n "s/^ *$1: //p"; }
addrA() { ns_exec A cat /sys/class/net/ib0/address; }
# B's neighbour entry for 10.0.0.1 names A's address $1
b_knows() { ip -n B neigh show 10.0.0.1 dev ib1 | grep -q "lladdr $1 " || { echo "B: $(ip -n B neigh show 10.0.0.1 dev ib1)"; return 1; }; }
# what a resize announced (diagnostics, not checks): B's broadcast receives, B's entry for A
bcast() { ns_exec B ethtool -S ib1 | sed -n 's/^ *rx_broadcast: //p'; }
announce_diag() { sleep 2; diag "B rx_broadcast +$(( $(bcast) - $1 )) since the resize; $(ip -n B neigh show 10.0.0.1 dev ib1); A: $(etA -S ib0 | grep -E '^ +tx_drop_(mcast|not_up)' | grep -v ': 0$' | tr -s ' \n' ' ')"; }
# refused ERRTEXT NLINES cmd...: cmd fails, its output contains ERRTEXT, NLINES driver lines
refused() {
    _e=$1 _want=$2; shift 2
    dmesg_mark bad
    if _o=$("$@" 2>&1); then echo "succeeded: $_o"; return 1; fi
    case $_o in *"$_e"*) ;; *) echo "expected \"$_e\", got: $_o"; return 1 ;; esac
    [ "$(lines)" = "$_want" ] || { echo "$(lines) log lines, want $_want:"; dmesg_since_mark; return 1; }
}

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check "namespaces A (ib0, 10.0.0.1) and B (ib1, 10.0.0.2)" ns_pair ib0 ib1
carriers() { wait_carrier ib0 A 60 && wait_carrier ib1 B 60; }
check "carrier on both" carriers
maxima() { etA -g ib0 | sed -n '/maximums/,/Current/p' | grep -Eq 'RX:[[:space:]]+8192$' && etA -g ib0 | sed -n '/maximums/,/Current/p' | grep -Eq 'TX:[[:space:]]+8192$'; }
check "ethtool -g: maxima RX 8192 TX 8192" maxima
check "ethtool -g: current rx 256 tx 128 (the module parameters)" sizes 256 128
check "10 pings before, every one answered" ns_ping_all A 10.0.0.2 10
a0=$(addrA)
check "B knows A's address" b_knows "$a0"

# ---- -G while up
dmesg_mark g1
f0=$(stat rx_flushed) e0=$(stat rx_wc_errors) bc=$(bcast)
check "ethtool -G ib0 rx 1024 tx 512 (up)" etA -G ib0 rx 1024 tx 512
check "ethtool -g: rx 1024 tx 512" sizes 1024 512
check "one log line: rings rx 1024 tx 512 (were rx 256 tx 128)" one_line 'ib_ipoib_cm: ib0: rings rx 1024 tx 512 (were rx 256 tx 128): UD QPN'
check_output "ring_resizes 1" '^1$' stat ring_resizes
check_output "ring_resize_errors 0" '^0$' stat ring_resize_errors
still_up() { ip -n A -o addr show dev ib0 | grep -q "10.0.0.1/24" && ip -n A -o link show dev ib0 | grep -q "[<,]UP[,>]"; }
check "still IFF_UP with its address" still_up
a1=$(addrA)
newqpn() { [ "${a1%%:*}" = "${a0%%:*}" ] && [ "$(echo "$a1" | cut -d: -f5-)" = "$(echo "$a0" | cut -d: -f5-)" ] &&
    [ "$(echo "$a1" | cut -d: -f2-4)" != "$(echo "$a0" | cut -d: -f2-4)" ] || { echo "$a0 -> $a1"; return 1; }; }
check "new QPN in the address, flags and GID kept" newqpn
flushed() { [ "$(stat rx_flushed)" -gt "$f0" ] && [ "$(stat rx_wc_errors)" -eq "$e0" ]; }
check "the old QP's receives were flushed (rx_flushed grew), no receive error" flushed
check "carrier back" wait_carrier ib0 A 30
announce_diag "$bc"
# A's neighbours went with its old address (NETDEV_CHANGEADDR): its first packet to B is an
# ARP request, which gives B the new address
check "20 pings after, every one answered" ns_ping_all A 10.0.0.2 20
check "B has A's new address" b_knows "$a1"
check "10 pings from B to A, every one answered" ns_ping_all B 10.0.0.1 10

# ---- bad values: refused, nothing changes
check "rx 1: EINVAL, one driver line" refused "rx must be from 2 to 8192" 1 etA -G ib0 rx 1
check "tx 64: EINVAL, one driver line" refused "tx must be from 128 to 8192" 1 etA -G ib0 tx 64
check "rx 16384: EINVAL from the ethtool core (above the maximum), no driver line" refused "exceeds maximum" 0 etA -G ib0 rx 16384
check "sizes unchanged (rx 1024 tx 512)" sizes 1024 512
check_output "address unchanged" "^$a1\$" addrA
check_output "ring_resizes still 1" '^1$' stat ring_resizes
check_output "ring_resize_errors 2 (the driver's two refusals)" '^2$' stat ring_resize_errors
check "5 pings, every one answered" ns_ping_all A 10.0.0.2 5

# ---- rounding, and the same sizes again
dmesg_mark g2
check "rx 300 tx 200 accepted" etA -G ib0 rx 300 tx 200
check "rounded up: rx 512 tx 256" sizes 512 256
check "one line says so" one_line 'rounded up to rx 512 tx 256'
check "carrier back" wait_carrier ib0 A 30
a2=$(addrA)
dmesg_mark g3
check "rx 512 tx 256 again: accepted" etA -G ib0 rx 512 tx 256
same() { [ "$(addrA)" = "$a2" ] && [ "$(stat ring_resizes)" -eq 2 ] && [ "$(lines)" -eq 0 ]; }
check "... no new QP (address, ring_resizes 2, no log line)" same
check "10 pings answered" ns_ping_all A 10.0.0.2 10
check "B has the address of the rounded resize" b_knows "$a2"

# ---- while down
down_g_up() { ip -n A link set ib0 down && etA -G ib0 rx 256 tx 128 && ip -n A link set ib0 up; }
check "down, -G rx 256 tx 128, up" down_g_up
check "rx 256 tx 128" sizes 256 128
check "carrier back" wait_carrier ib0 A 30
a3=$(addrA)
check "10 pings answered" ns_ping_all A 10.0.0.2 10
check "B has the new address" b_knows "$a3"

# ---- a failed resize, then -G again (twice): the interface reopens, NAPI stays paired
fault=/sys/kernel/debug/softib/softib0/fault
dmesg_mark g4
check "softib: the next 2 QP creations fail" sh -c "echo fail_create_qp 2 > $fault"
nomem() { if _o=$(etA -G ib0 rx 512 tx 256 2>&1); then echo "succeeded: $_o"; return 1; fi
    case $_o in *"no memory for a UD QP"*) ;; *) echo "expected \"no memory for a UD QP\", got: $_o"; return 1 ;; esac; }
check "-G rx 512 tx 256 fails: no memory for a UD QP" nomem
check_output "ring_resize_errors 3" '^3$' stat ring_resize_errors
check "-G rx 512 tx 256 again: a new QP" etA -G ib0 rx 512 tx 256
check "rx 512 tx 256" sizes 512 256
check "the interface opened again: carrier back" wait_carrier ib0 A 30
check "-G rx 256 tx 128 right after" etA -G ib0 rx 256 tx 128
check "carrier back" wait_carrier ib0 A 30
check "10 pings answered" ns_ping_all A 10.0.0.2 10

# ---- -G twice in a row under pings, and twice while down
ns_exec A ping -q -c 40 -i 0.05 10.0.0.2 >/dev/null 2>&1 &
pp=$!
twice() { etA -G ib0 rx 512 tx 256 && etA -G ib0 rx 1024 tx 512; }
check "-G twice in a row while pinging" twice
wait $pp || true	# the pings across the resizes may be lost: the checks below say
check "carrier back" wait_carrier ib0 A 30
check "10 pings answered" ns_ping_all A 10.0.0.2 10
down_twice_up() { ip -n A link set ib0 down && etA -G ib0 rx 512 tx 256 && etA -G ib0 rx 256 tx 128 && ip -n A link set ib0 up; }
check "down, -G twice, up" down_twice_up
check "carrier back" wait_carrier ib0 A 30
check "10 pings answered" ns_ping_all A 10.0.0.2 10
check "kernel log clean" dmesg_clean

# ---- connected mode: -G under RC traffic
sysw() { ns_exec "$1" sh -c "echo '$3' > /sys/class/net/$2"; }
both_cm() { sysw A ib0/mode connected && sysw B ib1/mode connected; }
check "mode connected on both" both_cm
check "a 3000 B ping gets through (RC)" wait_for 30 ns_reach A 10.0.0.2 1 -s 3000
check "one connection established" wait_for 10 cm_has ib0 1 ' state=established '
check "-G rx 2048 tx 256 (connected, up)" etA -G ib0 rx 2048 tx 256
check "rx 2048 tx 256" sizes 2048 256
check "carrier back" wait_carrier ib0 A 30
check "a 3000 B ping gets through after" wait_for 30 ns_reach A 10.0.0.2 1 -s 3000
check "10 pings of 3000 B, every one answered" ns_ping_all A 10.0.0.2 10 -s 3000
check_output "ring_resize_errors still 3" '^3$' stat ring_resize_errors
check "kernel log clean" dmesg_clean
exit $(tap_status)
