#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm admin mode (RFC 4755 §1; docs/connected.md §9a), ours <-> ours over softib (ib0
# in A, ib1 in B) and a P_Key child on each side:
#   - sysfs `mode` and netlink (`ip link set type ipoib mode`, `ip link add ... mode`) switch
#     both ways, `ip -d link` and sysfs show it; an invalid write is EINVAL with one log line;
#   - MTU: connected raises it to 65520 (the bound), `ip link set mtu` may lower it, not
#     exceed it; datagram returns to the UD MTU (2044) or keeps a smaller admin MTU; a
#     broadcast join in connected mode leaves the MTU alone (the children);
#   - offloads (ndo_fix_features, docs/connected.md §9a): connected mode offers IPv4/IPv6
#     checksum and SG (cm_csum_free=1, the default) but never TSO nor the generic HW checksum;
#     `ethtool -k` back to exactly its datagram output after the switch back;
#   - a packet above the UD MTU: unicast to a peer address without the RC flag goes over UD,
#     so IPv4/IPv6 pings of 3000 B get through by PMTU discovery (the first one answered by
#     our ICMP frag-needed / packet too big, counted, the routes learning 2044); with the
#     flag they ride RC, no ICMP; a broadcast ping above the UD MTU is
#     dropped, counted (tx_drop_mcast_too_big) and logged once — multicast is UD in every mode;
#   - mode switches on both ends while a ping and an iperf3 run over UD: every ping answered
#     or its loss counted (a stalled connection's full queue).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 pkeys=0x8001
# load: ib_ipoib_cm
# mem: 1024
# timeout: 400
. /e2e/lib.sh
plan 63

dbg=/sys/kernel/debug/ib_ipoib_cm
# sysw NS FILE VALUE: write a sysfs file of NS's netdevs (ip netns exec mounts NS's sysfs)
sysw() { ns_exec "$1" sh -c "echo '$3' > /sys/class/net/$2"; }
sysr() { ns_exec "$1" cat "/sys/class/net/$2"; }
mtu_of() { ip -n "$1" -o link show "$2" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }
mtu_is() { [ "$(mtu_of "$1" "$2")" = "$3" ] || { echo "mtu $(mtu_of "$1" "$2"), want $3"; return 1; }; }
# mode_is NS DEV MODE: sysfs, ip -d link and the MTU's bound agree
mode_is() {
    _m=$(sysr "$1" "$2/mode") && [ "$_m" = "$3" ] || { echo "sysfs mode '$_m', want $3"; return 1; }
    ip -n "$1" -d link show "$2" | grep -q "ipoib .*mode $3" || { ip -n "$1" -d link show "$2"; return 1; }
}
log_count() { dmesg_since_mark | grep -c -- "$1"; }
# all CMD...: each CMD (a string, run in this shell: functions work) in order, until one fails
all() { for _c in "$@"; do eval "$_c" || { echo "failed: $_c"; return 1; }; done; }
feat_same() { _f=$(ns_exec A ethtool -k ib0); [ "$_f" = "$feat_dg" ] || { echo "now:"; echo "$_f"; return 1; }; }

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
ns_pair ib0 ib1
check "carrier on ib0" wait_carrier ib0 A 60
check "carrier on ib1" wait_carrier ib1 B 60
check "both start in datagram mode (sysfs, ip -d link)" all 'mode_is A ib0 datagram' 'mode_is B ib1 datagram'
check "datagram MTU 2044 (the broadcast group's)" mtu_is A ib0 2044
feat_dg=$(ns_exec A ethtool -k ib0)
check "ping A->B in datagram mode" ns_reach A 10.0.0.2 3

# ---- sysfs: connected
snap m A:ib0
check "sysfs: echo connected > ib0/mode" sysw A ib0/mode connected
check "ib0 is in connected mode (sysfs, ip -d link)" mode_is A ib0 connected
check "connected mode raises the MTU to 65520" mtu_is A ib0 65520
check_delta "mode change counted" m A:ib0 mode_changes -eq 1
check_output "ethtool -k: tx checksum (IPv4) offered in connected mode (cm_csum_free=1)" 'tx-checksum-ipv4: on' ns_exec A ethtool -k ib0
check_output "ethtool -k: no TSO in connected mode" 'tcp-segmentation-offload: off' ns_exec A ethtool -k ib0
check_fail "ethtool -K tx-checksum-ip-generic on is refused in connected mode" 'Could not change|Cannot change|not supported' \
    ns_exec A ethtool -K ib0 tx-checksum-ip-generic on
check_fail "MTU 65521 refused (above connected mode's 65520)" 'greater than device maximum|Invalid argument' \
    ip -n A link set ib0 mtu 65521
check "MTU lowered to 9000 in connected mode" all 'ip -n A link set ib0 mtu 9000' 'mtu_is A ib0 9000'
check "MTU back to 65520" all 'ip -n A link set ib0 mtu 65520' 'mtu_is A ib0 65520'
check "echo connected again keeps connected/65520" all 'sysw A ib0/mode connected' 'mode_is A ib0 connected' 'mtu_is A ib0 65520'
check "ping A->B 56 B, A connected, B datagram" ns_reach A 10.0.0.2 3
check "ping B->A 56 B" ns_reach B 10.0.0.1 3

# ---- a unicast packet above the UD MTU. In connected mode only a peer whose address carries
# the RC flag is reached over RC (RFC 4755 §3.1); to one without it, unicast takes the UD path,
# whose xmit answers a packet above the UD MTU with ICMP frag-needed (IPv4, RFC 1191) or packet
# too big (IPv6, RFC 8201) carrying 2044, and the local route learns it. Static neighbours for
# B without the flag put A's pings to B on that path; B (connected) answers over RC.
check "sysfs: B connected too" all 'sysw B ib1/mode connected' 'mode_is B ib1 connected' 'mtu_is B ib1 65520'
addr_b=$(sysr B ib1/address)
ud_b=00${addr_b#??}
check "A: static neighbours for B without the RC flag ($ud_b)" all \
    "ip -n A neigh replace 10.0.0.2 lladdr $ud_b nud permanent dev ib0" \
    "ip -n A -6 neigh replace fd00::2 lladdr $ud_b nud permanent dev ib0"
snap big A:ib0
check "ping A->B 3000 B over UD: the first answered by frag-needed, the other 4 by B" ns_ping_errs A 10.0.0.2 5 1 -s 3000
check "ping6 A->B 3000 B over UD: the first answered by packet too big, the other 4 by B" ns_ping_errs A fd00::2 5 1 -6 -s 3000
check_delta "ICMP frag-needed counted (IPv4 over UD)" big A:ib0 tx_icmp_frag_needed -eq 1
check_delta "ICMPv6 packet too big counted (IPv6 over UD)" big A:ib0 tx_icmp_pkt_too_big -eq 1
check_output "the route learned MTU 2044 from our ICMP" 'mtu 2044' ip -n A route get 10.0.0.2
check_output "the IPv6 route learned MTU 2044 from our ICMPv6" 'mtu 2044' ip -n A -6 route get fd00::2
check_delta "no oversized unicast dropped silently" big A:ib0 tx_drop_too_big -eq 0
# B's own address back (RC flag) and the learned PMTU gone: the same pings ride RC, no ICMP
check "A: B's neighbour with the RC flag again, IPv4 route cache flushed" all \
    "ip -n A neigh replace 10.0.0.2 lladdr $addr_b nud permanent dev ib0" 'ip -n A route flush cache'
snap rc A:ib0
check "ping A->B 3000 B over RC: every one answered" ns_ping_all A 10.0.0.2 5 -s 3000
check_delta "... none answered by frag-needed" rc A:ib0 tx_icmp_frag_needed -eq 0
check_delta "... carried by RC (rc_tx_packets)" rc A:ib0 rc_tx_packets -ge 5

# ---- multicast above the UD MTU: dropped, counted, logged once (UD in every mode)
ns_exec B sh -c "echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts"
check_output "broadcast ping 56 B from A (connected): B answers" 'bytes from 10\.0\.0\.2:' \
    ns_exec A /usr/bin/ping -b -c 3 -i 0.2 -W 2 10.0.0.255
dmesg_mark mcbig
snap mc A:ib0
check_rc "broadcast ping 3000 B from A: no reply (above the UD MTU)" 1 \
    ns_exec A /usr/bin/ping -b -c 3 -i 0.2 -W 1 -s 3000 10.0.0.255
check_rc "again: no reply" 1 ns_exec A /usr/bin/ping -b -c 2 -i 0.2 -W 1 -s 3000 10.0.0.255
check_delta "every oversized broadcast counted (tx_drop_mcast_too_big)" mc A:ib0 tx_drop_mcast_too_big -eq 5
check_output "logged once" '^1$' log_count 'multicast packet of 3028 octets above the UD MTU 2044'
check_delta "no ICMP for a broadcast" mc A:ib0 tx_icmp_frag_needed -eq 0

# ---- back to datagram
snap m2 A:ib0
check "sysfs: echo datagram > ib0/mode" sysw A ib0/mode datagram
check "ib0 back in datagram mode" mode_is A ib0 datagram
check "datagram mode: MTU back to 2044" mtu_is A ib0 2044
check_delta "mode change counted" m2 A:ib0 mode_changes -eq 1
check "ethtool -k exactly as before connected mode" feat_same
check_fail "datagram: MTU 2045 refused" 'greater than device maximum|Invalid argument' ip -n A link set ib0 mtu 2045
check "datagram: MTU 1500 accepted" all 'ip -n A link set ib0 mtu 1500' 'mtu_is A ib0 1500'
check "connected from 1500: 65520; lowered to 1400" all 'sysw A ib0/mode connected' 'mtu_is A ib0 65520' \
    'ip -n A link set ib0 mtu 1400' 'mtu_is A ib0 1400'
check "datagram keeps the smaller admin MTU 1400" all 'sysw A ib0/mode datagram' 'mtu_is A ib0 1400'
ip -n A link set ib0 mtu 2044

# ---- invalid writes
dmesg_mark bad
check_fail "mode bogus: EINVAL" 'Invalid argument' sysw A ib0/mode bogus
check_output "... one log line" '^1$' log_count 'invalid mode "bogus"'
check "... and the mode unchanged" mode_is A ib0 datagram

# ---- netlink
check "ip link set ib0 type ipoib mode connected" all 'ip -n A link set ib0 type ipoib mode connected' \
    'mode_is A ib0 connected' 'mtu_is A ib0 65520'
check "ip link set ib0 type ipoib mode datagram" all 'ip -n A link set ib0 type ipoib mode datagram' \
    'mode_is A ib0 datagram' 'mtu_is A ib0 2044'

# ---- P_Key children: newlink with a mode (B), sysfs child switched by sysfs (A)
check "ip link add ib1.8001 type ipoib pkey 0x8001 mode connected" \
    ip -n B link add link ib1 name ib1.8001 type ipoib pkey 0x8001 mode connected
check "sysfs create_child 0x8001 on ib0, then connected" all 'sysw A ib0/create_child 0x8001' 'sysw A ib0.8001/mode connected'
ns_addr A ib0.8001 10.0.1.1/24
ns_addr B ib1.8001 10.0.1.2/24
check "carrier on both children" all 'wait_carrier ib0.8001 A 60' 'wait_carrier ib1.8001 B 60'
check "children connected, the join left MTU 65520" all 'mode_is A ib0.8001 connected' 'mtu_is A ib0.8001 65520' \
    'mode_is B ib1.8001 connected' 'mtu_is B ib1.8001 65520'
check "ping over the children 3000 B" ns_reach A 10.0.1.2 5 -s 3000
check "ip link set ib1.8001 type ipoib mode datagram: MTU 2044" all 'ip -n B link set ib1.8001 type ipoib mode datagram' \
    'mode_is B ib1.8001 datagram' 'mtu_is B ib1.8001 2044'
check_output "the parent ib1 stayed connected" '^connected$' sysr B ib1/mode

# ---- switches under traffic. Unicast goes over RC in connected
# mode whatever its size, and a switch to datagram tears the active connections down. The
# teardown waits (bounded, WaitSends, docs/connected.md §4) for the sends already posted before
# QpToErr, so none in flight is flushed; what xmit hands over meanwhile goes over UD. Every
# ping must be answered, with or without RC (but see below). iperf3 is paced (100 Mbit/s): unpaced, the TCP
# burst that follows a switch from RC to UD overruns B's UD receive queue under TCG (softib
# drop_no_rwqe 37-87 per run; UD has no flow control, IBA 9.8.3.3 silently drops a UD packet
# with no receive posted) and a ping caught in it was lost 1 run in 3: a fabric loss, counted
# by the HCA, not what this check is about. The drops are printed below either way.
# A connection stalled by its peer's switch (B's QP going away before A has its DREQ) holds
# its send bound and then a queue of its own (64); what arrives beyond is dropped and counted
# (cm_tx_drop_queue_full, rc_tx_drop_conn_queue: a peer never stops the netdev queue), the
# in-flight ping among it at times (1 and 3 of 150 seen with 21 and 13 drops). So a ping may
# go unanswered only where a drop was counted: no more unanswered than counted drops. A silent
# loss fails it: one RC receive in four dropped uncounted (a planted fault) left 40 of the
# 150 unanswered with 0 drops counted.
snap sw A:ib0 B:ib1 ib:softib0 ib:softib1
iperf3_server B 5201 -1
ns_exec A /usr/bin/ping -c 150 -i 0.02 -W 3 -s 1000 10.0.0.2 > /tmp/flood.out 2>&1 &
flood=$!
ns_exec A iperf3 -c 10.0.0.2 -p 5201 -t 6 -b 100M -f m > /tmp/iperf.out 2>&1 &
ip3=$!
for i in 1 2 3; do
    sysw A ib0/mode connected; sleep 0.3; sysw B ib1/mode datagram; sleep 0.3
    ip -n A link set ib0 type ipoib mode datagram; sleep 0.3
    ip -n B link set ib1 type ipoib mode connected; sleep 0.3
done
wait $flood
wait $ip3; ip3_rc=$?
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' /tmp/flood.out)
got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' /tmp/flood.out)
diag "ping under mode switches: sent $sent received $got"
diag "RC sends flushed at the switches (both ends): $(( $(delta sw A:ib0 rc_tx_wc_errors) + $(delta sw B:ib1 rc_tx_wc_errors) )), waits expired: $(( $(delta sw A:ib0 rc_tx_wait_expired) + $(delta sw B:ib1 rc_tx_wait_expired) )), queue overflow to UD: $(( $(delta sw A:ib0 cm_tx_overflow_ud) + $(delta sw B:ib1 cm_tx_overflow_ud) )), dropped: $(( $(delta sw A:ib0 cm_tx_drop_queue_full) + $(delta sw B:ib1 cm_tx_drop_queue_full) ))"
# where a lost ping went: softib drops (no receive posted on a UD QP, no QP, port down) and
# the sequence numbers answered
for _d in drop_no_rwqe drop_no_qp drop_port_down rnr_nak flushed_wqes; do
    diag "softib $_d: host A +$(delta sw ib:softib0 $_d), host B +$(delta sw ib:softib1 $_d)"
done
[ "$got" = 150 ] || diag "answered seqs: $(sed -n 's/.*icmp_seq=\([0-9]*\).*/\1/p' /tmp/flood.out | tr '\n' ' ')"
qdrops=$(( $(delta sw A:ib0 cm_tx_drop_queue_full) + $(delta sw B:ib1 cm_tx_drop_queue_full) ))
check "every ping under mode switches answered, or its loss counted ($got/150, $qdrops queue-full drops)" \
    sh -c "[ '$sent' = 150 ] && [ -n '$got' ] && [ \$((150 - $got)) -le $qdrops ]"
check_output "iperf3 under mode switches moved data" 'receiver' sh -c "[ $ip3_rc = 0 ] && cat /tmp/iperf.out"
diag "$(grep -E 'sender|receiver' /tmp/iperf.out)"
check "modes after the switches: A datagram, B connected" all 'mode_is A ib0 datagram' 'mode_is B ib1 connected' \
    'mtu_is A ib0 2044' 'mtu_is B ib1 65520'
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S ib0 | grep -v ': 0$')"
ns_delete_all
exit $(tap_status)
