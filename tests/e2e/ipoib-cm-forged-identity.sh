#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode, a forged identity (docs/security.md "Who may carry our traffic"): a port
# claims another host's GID and UD QPN in a REQ with the bidirectional capability, from a real
# RC QP that completes the handshake. Three softib hosts: softib0 is the forger (softib's
# gid_alias=0:2 gives its port C's GID at GID index 1, unknown to the SA; ib_cm sends the REQ
# from the first port holding that GID, softib0's), ours on softib1 (B, icm0) and softib2 (C,
# icm1). tests/kmod/ipoib_cmreq_test's `forge` REQ claims C's GID (source GID index 1), C's UD
# QPN and kCapBidir, answers our REP with an RTU, and counts what its QP receives.
# - Before B knows C's path (no LID to compare): the forged connection is accepted and put to
#   its proof; the probe goes over UD to C through B's own path record, C has no connection
#   for it (cm_id_probes_unmatched), the proof times out (cm_id_proof_timeouts), and B's
#   60000-byte and small pings to C, all of them, go over B's own connection: the forger
#   receives none of them.
# - The genuine proof: C's connection accepted from B is proven by B's echo (cm_id_verified on
#   C, cm_id_echoes_sent on B) and carries C's replies: one connection between B and C.
# - Once B has C's path, a forged REQ's LID (the forger's) does not match it
#   (cm_id_lid_mismatch): never proven, and the connection B and C use is not replaced.
# Pings: 5 of 60000 bytes and 10 small ones per step on stock, 3 and 5 on the debug kernel
# (every one answered either way).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3 gid_alias=0:2
# load: ib_ipoib_cm ports=softib1:1,softib2:1 ifname=icm%d
# load: ipoib_cmreq_test
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: core
. /e2e/lib.sh
plan 26
nbig=$(by_kernel 5 3); nsmall=$(by_kernel 10 5)

CTL=/sys/kernel/debug/ipoib_cmreq_test/ctl
dmesg_mark forged
check "icm0 and icm1 exist (ours on softib1, softib2)" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1'
gid_of() { tr -d ':' < "/sys/class/infiniband/$1/ports/1/gids/$2"; }
addr_gid() { cut -d: -f5- "/sys/class/net/$1/address" | tr -d ':'; }
check "icm0 is softib1's, icm1 softib2's" sh -c "[ $(addr_gid icm0) = $(gid_of softib1 0) ] && [ $(addr_gid icm1) = $(gid_of softib2 0) ]"
check "softib0 holds C's GID at index 1 (gid_alias)" test "$(gid_of softib0 1)" = "$(gid_of softib2 0)"
check "both -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode && echo connected > /sys/class/net/icm1/mode'
ns_create B C
ns_move icm0 B && ns_move icm1 C
ns_addr B icm0 10.0.9.2/24 && ns_addr C icm1 10.0.9.3/24
both_up() { has_carrier icm0 B && has_carrier icm1 C; }
check "carrier on both" wait_for 60 both_up
check "MTU 65520 on both" sh -c '/sbin/ip -n B link set icm0 mtu 65520 && /sbin/ip -n C link set icm1 mtu 65520'

blid=$(printf '%d' "$(cat /sys/class/infiniband/softib1/ports/1/lid)")
bgid=$(gid_of softib1 0)
bqpn=$(ns_exec B cat /sys/class/net/icm0/address | cut -d: -f2-4 | tr -d ':')
cqpn=$(ns_exec C cat /sys/class/net/icm1/address | cut -d: -f2-4 | tr -d ':')
sid=$(printf '%x' $((0x1000000000000000 | 0x$bqpn)))
# RFC 4755 §6 (C's UD QPN, Receive MTU 65524) + the capability block with kCapBidir
pd=$(printf '00%06x%08x4950434d01000001' "0x$cqpn" 65524)
forge() { echo "forge softib0 $blid $bgid $sid 1 $pd" > $CTL 2>&1 && cat $CTL; }
forge_rx() { sed -n 's/.* forge_rx=\([0-9]*\).*/\1/p' $CTL; }
forged_conn() { grep -q "dir=passive .*state=established" "$(cm_file icm0 connections)"; }

snap a B:icm0 C:icm1
r=$(forge)
check "the forger's REQ (C's GID and UD QPN, bidirectional) is accepted: $r" sh -c "printf '%s' '$r' | grep -q 'result=rep .*close=none'"
check "... and established on B (passive)" wait_for 5 forged_conn
check "B's proof of it times out (cm_id_proof_timeouts)" wait_for 10 delta_ge a B:icm0 cm_id_proof_timeouts 1
check_delta "... after one proof opened" a B:icm0 cm_id_proofs -eq 1
check_delta "C got B's probe over UD and has no connection for it" a C:icm1 cm_id_probes_unmatched -ge 1
check "ping -s 60000 B->C, every one answered" ns_ping_all B 10.0.9.3 "$nbig" -s 60000
check "ping B->C, every one answered" ns_ping_all B 10.0.9.3 "$nsmall"
check "the forger received none of B's packets (forge_rx=0)" test "$(forge_rx)" = 0
check_delta "C proved the connection B opened (cm_id_verified)" a C:icm1 cm_id_verified -ge 1
check_delta "... with B's echo (cm_id_echoes_sent)" a B:icm0 cm_id_echoes_sent -ge 1
check_delta "no echo carried a wrong nonce" a B:icm0 cm_id_echo_mismatch -eq 0
check "C: one connection, established, bidir=1 (it carries C's replies)" cm_has icm1 1 'dir=passive .*state=established .*bidir=1'
check "ping -s 60000 C->B, every one answered" ns_ping_all C 10.0.9.2 "$nbig" -s 60000
cm_show icm0 icm1

# B now holds C's path record: a forged REQ with the forger's LID never gets to its proof
snap m B:icm0 C:icm1
r=$(forge)
check "a second forged REQ is accepted: $r" sh -c "printf '%s' '$r' | grep -q 'result=rep '"
check_delta "... its LID is not C's (cm_id_lid_mismatch)" m B:icm0 cm_id_lid_mismatch -eq 1
check_delta "... no proof opened for it" m B:icm0 cm_id_proofs -eq 0
check "ping -s 60000 B->C after it, every one answered" ns_ping_all B 10.0.9.3 "$nbig" -s 60000
check "ping B->C after it, every one answered" ns_ping_all B 10.0.9.3 "$nsmall"
check "the forger received none of B's packets (forge_rx=0)" test "$(forge_rx)" = 0
cm_ctrs B icm0; cm_ctrs C icm1
check "kernel log clean" dmesg_clean
exit $(tap_status)
