#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode ours <-> ours, crossing REQs (RFC 4755 §3.3, docs/connected.md §2): softib's
# `delay_cm` on both hosts holds each host's next REQ on the wire, so each REQ
# arrives after the other host sent its own. Both ends announce kCapBidir: the end with the
# larger address rejects the peer's REQ with Consumer Reject (28) and keeps its own, the
# smaller accepts and its own REQ is rejected. Exactly one connection results (one line on
# each side, the two ends of one QP pair, bidir=1), the arbitration shows in the counters
# (crossings won on one side, lost on the other, one REJ 28 from the larger), and the pings both
# hosts started at once lose nothing: packets wait in the neighbour's queue, never in a
# connection that loses. Warm-up in datagram mode resolves the paths first, so both REQs go
# out soon after the switch to connected mode. Each host's next CM MAD after the REQ (its REP or REJ) is held too: a crossing
# needs both REQs outstanding at both ends, and without it a REQ sent more than a REP's
# turnaround after the other finds the other's connection already established, both REQs are
# accepted and two connections result (counted cm_crossings_both; seen on 6.12 with the REQ
# delay alone). So the hosts may send their REQs up to 400 ms apart. REQ + REP delays (800 ms)
# stay below our CM response timeout (18: ib_cm waits 1024 ms + 2 × the packet lifetime): no
# REQ resent.
# The start signal leaves the pings' first packets close, not always within 400 ms: on the
# debug kernel under host load one host's first packet sometimes comes after the peer's REQ
# reached it, and it then sends no REQ of its own (it waits for the connection it accepted): no
# crossing. Such a round, and only one that shows nothing else (one REQ from one host and none
# from the other, both pings with echoes 1..20 answered, no crossing counted on either end), is run again
# from the same start (datagram mode, both interfaces down and up, paths resolved), at most
# ATTEMPTS rounds in all; the checks then judge the last round, so they fail when none crossed.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
# (on the debug kernel in make test-full: 170-300 s there with its repeated rounds, 15 s on
# stock)
. /e2e/lib.sh
plan 27

F0=/sys/kernel/debug/softib/softib0/fault
F1=/sys/kernel/debug/softib/softib1/fault
ATTEMPTS=5	# rounds at most (see the header: a round whose REQs did not cross is run again)
dmesg_mark crossing
check "icm0 and icm1 exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1'
addr_a=$(cat /sys/class/net/icm0/address); addr_b=$(cat /sys/class/net/icm1/address)
diag "A $addr_a, B $addr_b"
ns_create A B
ns_move icm0 A && ns_move icm1 B
ns_addr A icm0 10.0.6.1/24 && ns_addr B icm1 10.0.6.2/24
# A round's steps, each run as a check in the first round and quietly (a failure shown) in a
# retry: the same start every time.
static_neighbours() {
    /sbin/ip -n A neigh replace 10.0.6.2 lladdr "$addr_b" nud permanent dev icm0 &&
        /sbin/ip -n B neigh replace 10.0.6.1 lladdr "$addr_a" nud permanent dev icm1
}
warm_up() { ns_exec A /usr/bin/ping -c 2 -i 0.2 -W 2 10.0.6.2 && ns_exec B /usr/bin/ping -c 2 -i 0.2 -W 2 10.0.6.1; }
no_connection() { [ "$(cat "$(cm_file icm0 connections)" "$(cm_file icm1 connections)" | wc -l)" -eq 0 ]; }
# one delay_cm per host (a second replaces the first): attribute 0 holds any CM MAD, here
# each host's next two (its REQ, then its REP or REJ)
hold_cm() { echo 'delay_cm 0 2 400' > $F0 && echo 'delay_cm 0 2 400' > $F1; }
# (the mode files are in the namespaces' sysfs now)
set_mode() { ns_exec A sh -c "echo $1 > /sys/class/net/icm0/mode" && ns_exec B sh -c "echo $1 > /sys/class/net/icm1/mode"; }
# Both pings start at one signal (/tmp/go), each already inside its namespace: on the debug
# kernel two `ip netns exec` in a row put the first packets (and so the REQs) more than the
# 400 ms apart that the delays cover.
go_ping() { ns_exec "$1" sh -c "while [ ! -e /tmp/go ]; do sleep 0.01; done; exec /usr/bin/ping -c 20 -i 0.1 -w 20 $2"; }
race() {
    rm -f /tmp/go
    go_ping A 10.0.6.2 > /tmp/pa.out 2>&1 & pa=$!
    go_ping B 10.0.6.1 > /tmp/pb.out 2>&1 & pb=$!
    sleep 1	# both shells waiting (no packet is sent before /tmp/go)
    touch /tmp/go
    wait $pa; ra=$?; wait $pb; rb=$?
}
# quietly STEP DESC cmd...: a retry's step; its failure is shown and ends the retries
quietly() {
    _q_d=$1; shift
    _q_out=$("$@" 2>&1) && return 0
    diag "round $round: $_q_d failed:"; diag "$_q_out"
    return 1
}
# A retry starts where round 1 did: no connection, no peer state (the interfaces down and up
# free every peer and path, CmTable::stop_end), paths resolved again in datagram mode.
next_round() {
    quietly "clear the faults" sh -c "echo clear > $F0 && echo clear > $F1" &&
        quietly "both -> datagram mode" set_mode datagram &&
        quietly "connections gone" wait_for 30 no_connection &&
        quietly "both down and up" sh -c '/sbin/ip -n A link set icm0 down && /sbin/ip -n B link set icm1 down &&
            /sbin/ip -n A link set icm0 up && /sbin/ip -n B link set icm1 up' &&
        quietly "carrier on both" wait_for 60 _cm_both_up &&
        quietly "static neighbours both ways" static_neighbours &&
        quietly "warm-up pings in datagram mode" warm_up &&
        quietly "no connection yet" no_connection &&
        quietly "delay_cm 0 2 400 on both hosts" hold_cm &&
        snap s ib:softib0 ib:softib1 A:icm0 B:icm1 &&
        quietly "both -> connected mode" set_mode connected
}
# no_crossing: this round's REQs did not cross, and nothing else in it went wrong: one host
# sent one REQ and the other none (its first packet came after the peer's REQ had reached it,
# outside the window the delays cover, and it used that connection), both pings had echoes
# 1..20 answered, and neither end counted a crossing. Anything else is judged by the checks below.
no_crossing() {
    _n0=$(delta s ib:softib0 cm_tx_req) && _n1=$(delta s ib:softib1 cm_tx_req) || return 1
    [ "$_n0$_n1" = 10 ] || [ "$_n0$_n1" = 01 ] || return 1
    [ "$ra" = 0 ] && [ "$rb" = 0 ] && ping_seqs_all /tmp/pa.out 20 && ping_seqs_all /tmp/pb.out 20 || return 1
    for _nc_s in A:icm0 B:icm1; do
        for _nc_c in cm_crossings_won cm_crossings_lost cm_crossings_both cm_crossings_refused; do
            [ "$(delta s $_nc_s $_nc_c)" = 0 ] || return 1
        done
    done
}
round=1
check "carrier on both" wait_for 60 _cm_both_up
check "static neighbours both ways" static_neighbours
check "warm-up pings in datagram mode (paths resolved both ways)" warm_up
check "no connection yet" no_connection
check "delay_cm 0 2 400 on both hosts" hold_cm
snap s ib:softib0 ib:softib1 A:icm0 B:icm1
check "both -> connected mode" set_mode connected
race
while no_crossing && [ $round -lt $ATTEMPTS ]; do
    diag "round $round: no crossing (REQs sent: softib0 +$(delta s ib:softib0 cm_tx_req), softib1 +$(delta s ib:softib1 cm_tx_req)); A: $(grep -E 'transmitted' /tmp/pa.out); B: $(grep -E 'transmitted' /tmp/pb.out)"
    cm_show icm0 icm1
    round=$((round + 1))
    diag "retrying: round $round of at most $ATTEMPTS"
    kmsg "ipoib-cm-crossing: no crossing in round $((round - 1)), round $round"
    next_round || break
    race
done
no_crossing && diag "no round of $round crossed: the checks below fail"
diag "A: $(grep -E 'transmitted' /tmp/pa.out)"
diag "B: $(grep -E 'transmitted' /tmp/pb.out)"
check "A's 20 pings during the race: echoes 1..20 answered (exit $ra)" ping_seqs_all /tmp/pa.out 20
check "B's 20 pings during the race: echoes 1..20 answered (exit $rb)" ping_seqs_all /tmp/pb.out 20
check "both REQs were held (delayed_fault +1 on each host)" sh -c "[ $(delta s ib:softib0 delayed_fault) -ge 1 ] && [ $(delta s ib:softib1 delayed_fault) -ge 1 ]"
check_delta "softib0 sent one REQ (no resend; round $round)" s ib:softib0 cm_tx_req -eq 1
check_delta "softib1 sent one REQ (no resend; round $round)" s ib:softib1 cm_tx_req -eq 1
cm_show icm0 icm1
check "A: exactly one connection, established, bidir=1" wait_for 10 cm_has icm0 1 ' state=established .* bidir=1 '
check "B: exactly one connection, established, bidir=1" cm_has icm1 1 ' state=established .* bidir=1 '
qa=$(cm_field icm0 . qpn); ra_=$(cm_field icm0 . rqpn); qb=$(cm_field icm1 . qpn); rb_=$(cm_field icm1 . rqpn)
check "A's and B's lines are the two ends of one QP pair ($qa $ra_ / $qb $rb_)" sh -c "[ -n '$qa' ] && [ -n '$qb' ] && [ '$qa $ra_' = '$rb_ $qb' ]"
# the survivor is the larger address's REQ (flag octet zeroed): its side is dir=active
big=$(printf '%s\n%s\n' "00${addr_a#??}" "00${addr_b#??}" | sort | tail -n 1)
if [ "$big" = "00${addr_a#??}" ]; then win=A; wif=icm0; lose=B; lif=icm1; else win=B; wif=icm1; lose=A; lif=icm0; fi
diag "larger address: $win"
check "$win (larger address) holds the active end" cm_has $wif 1 '^dir=active '
check_delta "$win: crossing won (rejected the peer's REQ)" s $win:$wif cm_crossings_won -eq 1
check_delta "$win: sent one Consumer Reject (28)" s $win:$wif cm_rej_tx_crossing -eq 1
check_delta "$win: ... counted by reason (cm_rej_tx_28_consumer)" s $win:$wif cm_rej_tx_28_consumer -eq 1
check_delta "$win: received no REJ" s $win:$wif cm_rej_rx_28_consumer -eq 0
check_delta "$lose: crossing lost (accepted the peer's REQ)" s $lose:$lif cm_crossings_lost -eq 1
check_delta "$lose: its REQ's REJ classified 'crossing'" s $lose:$lif cm_rej_rx_crossing -eq 1
check_delta "$lose: ... received as reason 28 (cm_rej_rx_28_consumer)" s $lose:$lif cm_rej_rx_28_consumer -eq 1
check_delta "$lose: sent no REJ" s $lose:$lif cm_rej_tx_28_consumer -eq 0
check_delta "$lose: no fall back" s $lose:$lif cm_fall_backs -eq 0
check "no side accepted both REQs (cm_crossings_both +0 on A and B)" sh -c "[ $(delta s A:icm0 cm_crossings_both) -eq 0 ] && [ $(delta s B:icm1 cm_crossings_both) -eq 0 ]"
cm_ctrs A icm0; cm_ctrs B icm1
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
