#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib at its host limit (128, softib/README.md "Scale"): the in-tree ib_ipoib in connected
# mode (SRQ) on every host, each host's netdev in its own namespace h0..h127. Host 0 <-> the
# last host first (8000-byte pings both ways: more than the 2044-byte UD MTU, so RC only; the
# REQ counted on the side that opened, the RC messages on the side that received them, and no
# RC message on an uninvolved host), then every host pings host 0 at once and host 0 pings
# every host at once (a hub): every ping gets 3 replies (resends allowed), host 0 accepted a connection
# from each peer and opened one to each, and the RC byte counters on host 0 and on every peer
# account for the pings.
# load: ib_core
# load: ib_cm
# load: softib hosts=128 time_scale=100
# load: ib_ipoib
# mem: 4096
# timeout: 1200
# kernels: stock
# tier: long
# (not on the debug kernel: ib_ipoib costs ~20 MiB per host, 2.5 GiB at 128 hosts, which with
# KASAN's shadow and slub_debug does not fit the 4 GiB VM; softib-scale-mem has the numbers)
. /e2e/lib.sh
plan 24

N=$(cat /sys/module/softib/parameters/hosts)
L=$((N - 1))
S=8000				# ping payload: > UD MTU (2044), so only RC can carry it
addr() { echo "10.9.$(($1 / 200)).$(($1 % 200 + 1))"; }
F() { echo "/sys/class/infiniband/softib$1/ports/1/hw_counters/$2"; }

diag "hosts=$N"
check "$N softib devices" test "$(ib_devices | grep -c '^softib')" -eq "$N"
check "$N ipoib netdevs" wait_for 300 sh -c "test \$(ls -d /sys/class/net/ib* | wc -l) -eq $N"
# netdev of host i (ipoib names them in registration order, but say so from sysfs)
hub_map_netdevs $(ipoib_netdevs)
check "every host has its netdev" sh -c "for i in \$(seq 0 $L); do test -s /tmp/if.\$i || exit 1; done"

setup() { hub_hosts_up $L 16 "mtu 65520"; } # every host: connected, own namespace h<i>, MTU 65520, up
check "$N namespaces, connected mode, MTU 65520, up" setup
# Static neighbours between host 0 and every peer: with ARP, 127 hosts resolving host 0 at
# once broadcast 127 x 3 requests to every host, more than an in-tree ipoib UD receive ring
# (256) refills under TCG (a first run counted ~2300 drop_no_rwqe on the peers and most
# pings failed in ARP). This scenario is about softib carrying RC at scale, not an ARP storm.
neigh() { # host 0 -> every peer, every peer -> host 0 (the RC flag 0x80 in each address)
    hub_static_neigh $L || return 1
    case $(cat /tmp/mac.0) in 80:*) ;; *) return 1 ;; esac
}
check "static neighbours host 0 <-> every peer, addresses with the RC flag" neigh
n_carrier() { _c=0; for i in $(seq 0 $L); do has_carrier $(ifn $i) h$i && _c=$((_c + 1)); done; echo $_c; }
all_carrier() { # within 300 s of wall time (one poll costs N ip calls under TCG)
    _end=$(( $(cut -d. -f1 /proc/uptime) + 300 ))
    while [ "$(n_carrier)" -ne "$N" ]; do
        [ "$(cut -d. -f1 /proc/uptime)" -lt $_end ] || { echo "carrier on $(n_carrier) of $N"; return 1; }
        sleep 2
    done; }
check "carrier on all $N" all_carrier

hping() { # FROM TO COUNT: COUNT replies of S-byte pings within 90 s (ping -w resends a lost echo)
    /sbin/ip netns exec h$1 /usr/bin/ping -q -c "$3" -i 0.5 -w 90 -s $S "$(addr $2)" > /tmp/pout.$1.$2 2>&1
}

# ---- host 0 <-> the last host
snap pair ib:softib0 ib:softib$L ib:softib1
check "ping host 0 -> host $L (3 replies of $S bytes)" hping 0 $L 3
check "ping host $L -> host 0 (3 replies of $S bytes)" hping $L 0 3
check_delta "host 0 opened a connection to host $L (REQ)" pair ib:softib0 cm_tx_req -ge 1
check_delta "host $L received it" pair ib:softib$L cm_rx_req -ge 1
check_delta "host $L received the pings over RC" pair ib:softib$L rc_rx_bytes -ge $((6 * S))
check_delta "host 0 received the pings over RC" pair ib:softib0 rc_rx_bytes -ge $((6 * S))
check_delta "uninvolved host 1: no RC message" pair ib:softib1 rc_rx_packets -eq 0
check_delta "uninvolved host 1: no CM REQ" pair ib:softib1 cm_rx_req -eq 0

# ---- every host <-> host 0 (the hub), all at once
for i in $(seq 0 $L); do
    for k in cm_tx_req cm_rx_req rc_rx_bytes rc_tx_bytes; do echo "$(cat $(F $i $k))" > /tmp/c0.$i.$k; done
done
d0() { echo $(( $(cat $(F $1 $2)) - $(cat /tmp/c0.$1.$2) )); }
fanin() { # every host pings host 0 at the same time; the number of pings that got 3 replies
    for i in $(seq 1 $L); do (hping $i 0 3 && touch /tmp/in.$i) & done
    wait; ls /tmp/in.* 2>/dev/null | wc -l; }
fanout() { # host 0 pings every host at the same time
    for i in $(seq 1 $L); do (hping 0 $i 3 && touch /tmp/out.$i) & done
    wait; ls /tmp/out.* 2>/dev/null | wc -l; }
t0=$(cut -d. -f1 /proc/uptime)
nin=$(fanin)
t1=$(cut -d. -f1 /proc/uptime)
nout=$(fanout)
t2=$(cut -d. -f1 /proc/uptime)
diag "fan-in: $nin of $L pings complete in $((t1 - t0)) s; fan-out: $nout of $L in $((t2 - t1)) s"
sumc() { _s=0; for i in $(seq 1 $L); do _s=$((_s + $(cat $(F $i $1)))); done; echo $_s; }
diag "peers: rnr_nak $(sumc rnr_nak) rnr_retry_exceeded $(sumc rnr_retry_exceeded) retry_exceeded $(sumc retry_exceeded) flushed $(sumc flushed_wqes) drop_no_qp $(sumc drop_no_qp) drop_no_rwqe $(sumc drop_no_rwqe)"
for i in $(seq 1 $L); do [ -e /tmp/in.$i ] || diag "h$i: $(tail -n 3 /tmp/pout.$i.0)"; done
# reachability, not loss: in-tree ipoib's RC QPs take no RNR retry, so a dry SRQ drops (rnr_retry_exceeded)
check "every host -> host 0: all $L reached it (3 replies each, resent echoes allowed)" test "$nin" -eq $L
check "host 0 -> every host: all $L reached (3 replies each, resent echoes allowed)" test "$nout" -eq $L
# in-tree connected mode: one RC connection per direction, opened by the sender; host 0
# already had one to/from host L (above), so at least L-1 new ones each way
check "host 0 accepted a connection from each new peer (cm_rx_req +$(d0 0 cm_rx_req))" test "$(d0 0 cm_rx_req)" -ge $((L - 1))
check "host 0 opened a connection to each new peer (cm_tx_req +$(d0 0 cm_tx_req))" test "$(d0 0 cm_tx_req)" -ge $((L - 1))
check "host 0 received >= 3 x $S bytes over RC from every peer (rc_rx_bytes +$(d0 0 rc_rx_bytes))" \
    test "$(d0 0 rc_rx_bytes)" -ge $((L * 6 * S))
check "host 0 sent >= 3 x $S bytes over RC to every peer (rc_tx_bytes +$(d0 0 rc_tx_bytes))" \
    test "$(d0 0 rc_tx_bytes)" -ge $((L * 6 * S))
peers_ok() { _b=""; for i in $(seq 1 $L); do
    [ "$(d0 $i rc_rx_bytes)" -ge $((6 * S)) ] && [ "$(d0 $i rc_tx_bytes)" -ge $((6 * S)) ] || _b="$_b $i"
    done; [ -z "$_b" ] || { echo "peers short of RC bytes:$_b"; return 1; }; }
check "every peer sent and received >= 6 x $S bytes over RC" peers_ok
peers_req() { _b=""; for i in $(seq 1 $((L - 1))); do
    [ "$(d0 $i cm_tx_req)" -ge 1 ] && [ "$(d0 $i cm_rx_req)" -ge 1 ] || _b="$_b $i"
    done; [ -z "$_b" ] || { echo "peers without a REQ each way:$_b"; return 1; }; }
check "every peer but host $L (connected above) sent a REQ to host 0 and got one from it" peers_req
check_rc "no 'RX drain timing out'" 1 dmesg_has 'RX drain timing out'
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib0/1)"
ns_delete_all
exit $(tap_status)
