#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode ours <-> ours, the peer dies and comes back: B's port goes down
# (softib `port_down 1` on softib1: IB_EVENT_PORT_ERR there, every packet to or from it
# dropped) while A sends to B over an established connection. A's sends fail (transport retries
# exhausted: RETRY_EXC after 3 local ACK timeouts, docs/connected.md §3, or the watchdog), its
# connection goes and it falls back to UD; B loses carrier and its end goes (no DREQ can
# reach A). Port up: B's carrier returns, A's next packets connect again after the back-off,
# on a new QP pair, and both sides end with exactly the one new connection (nothing stuck in
# draining: every fence completed; a connection whose far end died while this end's port was
# down hears nothing and is reaped after cm_idle_timeout=15). Twice, so the second death meets
# a reconnected connection. No kernel report.
#
# After port up A reconnects while B's old passive connection is still B's send path; the new
# passive's StartSending finds the slot taken, and when the old one fails ~0.9 s later the
# table must hand the send path to the peer's other offering connection (StopSending; also
# ipoib-cm-republish), or every B->A packet waits in the pending queue for good. "B answers
# over the new connection" checks B's tx= on it, so replies that ride UD during B's
# fall-back window do not hide it.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d cm_idle_timeout=15
# mem: 1024
# timeout: 300
# kernels: stock debug
. /e2e/lib.sh
plan 28

F1=/sys/kernel/debug/softib/softib1/fault
dmesg_mark peerdeath
cm_ours_pair 10.0.9
check "warm-up ping A->B" wait_for 30 ns_reach A 10.0.9.2 1
# one_each: A and B list exactly one connection each, established, the two ends of one pair
one_each() {
    cm_has icm0 1 ' state=established ' && cm_has icm1 1 ' state=established ' &&
        [ "$(cm_field icm0 . qpn)" = "$(cm_field icm1 . rqpn)" ]
}
# new_pair QPN: one_each, and A's QP is not QPN
# b_replies_rc: 5 pings A->B answered, and B's one connection sent them (not UD, not queued)
b_replies_rc() {
    _t0=$(cm_field icm1 . tx) && ns_reach A 10.0.9.2 5 >/dev/null && _t1=$(cm_field icm1 . tx) &&
        diag "B's connection tx=$_t0 -> $_t1" && [ $((_t1 - _t0)) -ge 5 ]
}
new_pair() { [ -n "$1" ] && one_each && ! grep -q " qpn=$1 " "$(cm_file icm0 connections)"; }
check "one connection, established on both ends" wait_for 10 one_each
for round in 1 2; do
    qa=$(cm_field icm0 . qpn); qb=$(cm_field icm1 . qpn)
    diag "round $round: A qpn $qa, B qpn $qb"
    snap d$round ib:softib0 A:icm0 B:icm1
    check "round $round: B's port down" sh -c "echo 'port_down 1' > $F1"
    check "round $round: B loses carrier" wait_for 20 sh -c '! /sbin/ip -n B -o link show icm1 | grep -q LOWER_UP'
    ns_exec A /usr/bin/ping -c 20 -i 0.5 -W 1 10.0.9.2 > /dev/null 2>&1 &
    pp=$!
    check "round $round: A's connection goes (A's sends fail)" wait_for 30 sh -c "[ -n '$qa' ] && ! grep -q ' qpn=$qa .* state=established ' $(cm_file icm0 connections)"
    check "round $round: A falls back to UD" wait_for 10 delta_ge d$round A:icm0 cm_fall_backs 1
    kill $pp 2>/dev/null; wait $pp 2>/dev/null
    diag "round $round: A retry_exceeded +$(delta d$round A:icm0 cm_retry_exceeded), watchdog +$(delta d$round A:icm0 cm_watchdog_teardowns), wc errors +$(delta d$round A:icm0 cm_wc_errors)"
    cm_show icm0 icm1
    check "round $round: B's port up" sh -c "echo 'port_up 1' > $F1"
    check "round $round: carrier on both" wait_for 60 _cm_both_up
    if ! check "round $round: traffic recovers: ping A->B (60 s)" ping_within 60 A 10.0.9.2; then
        cm_show icm0 icm1; cm_ctrs A icm0; cm_ctrs B icm1
        for f in paths neigh; do diag "A $f: $(cat $(cm_file icm0 $f))"; diag "B $f: $(cat $(cm_file icm1 $f))"; done
        diag "$(ns_exec A ethtool -S icm0 | grep -v ': 0$' | tr -s ' \n' ' ')"
        diag "$(ns_exec B ethtool -S icm1 | grep -v ': 0$' | tr -s ' \n' ' ')"
        diag "$(ns_ip B neigh show)"
        diag "$(dmesg_since_mark | tail -n 20)"
    fi
    # the back-off may still be running: wait for the new connection, then nothing else
    check "round $round: exactly one connection on each side again, a new pair, nothing draining (stale ones reaped)" wait_for 45 new_pair $qa
    check "round $round: B answers 5 pings over the new connection (its tx= grows by >= 5)" b_replies_rc
    cm_show icm0 icm1
done
check "ping -s 60000 both ways" sh -c '/sbin/ip netns exec A /usr/bin/ping -c 3 -W 2 -s 60000 10.0.9.2 && /sbin/ip netns exec B /usr/bin/ping -c 3 -W 2 -s 60000 10.0.9.1'
cm_ctrs A icm0; cm_ctrs B icm1
check_delta "B: no drain timeouts" d1 B:icm1 cm_drain_timeouts -eq 0
check_delta "A: no drain timeouts" d1 A:icm0 cm_drain_timeouts -eq 0
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
