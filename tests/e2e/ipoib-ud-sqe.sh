#!/bin/sh
# ib_ipoib_cm datagram mode: the UD QP comes back from the SQE state. softib's fault
# `ud_send_err QPN` fails the next send of A's UD QP with a local error, which moves the QP to
# SQE (IBA 10.3.1): every later send is flushed until the QP is modified back to RTS. The
# interface's work does that after the failed completion (counted ud_qp_recoveries, logged at
# most 10 times per 5 s), and A reaches B again; without it A never sends again. `ud_sqe` with
# sends queued fails the oldest and flushes the rest at once; a fault cleared does not fire;
# `clear` after `ud_sqe` with nothing queued keeps the error owed, so A still recovers.
# Then `qp_fatal QPN MS`: A's UD QP enters ERROR (every posted WR flushed; IBA 10.3.1: only a
# move through RESET leaves it) and its fatal event follows. The work quiesces the UD datapath,
# moves the same QP (same QPN, P_Key index, Q_Key) RESET -> INIT -> RTR -> RTS, reposts the
# receive ring and wakes the queue (counted ud_qp_error_recoveries); its multicast attachments
# survive the reset, so the broadcast group (ARP) works again without a rejoin. Last, `qp_err`
# (a move to ERR, no event) with A down and up at once: ifdown cancels the work, ifup's open
# asks again, one repair either way. Then softib's `modify_err` makes every repair fail: 5
# failures, the carrier held off, the fault cleared, and the rearm 30 s later brings the same QP
# back (carrier on, pings answered). Then both in connected mode with 60000-byte RC pings both
# ways while A's UD QP enters ERROR: one repair, every RC ping answered, UD works after it, and
# a second repair succeeds.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 330
# tier: long
. /e2e/lib.sh
plan 80

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
# octets 1-3 of the link address: the UD QPN (RFC 4391 §9.1.1)
qpn=0x$(cut -d: -f2-4 /sys/class/net/ib0/address | tr -d :)
diag "A's UD QPN $qpn"
fault=/sys/kernel/debug/softib/softib0/fault
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24
check "carrier on ib0" wait_carrier ib0 A 60
check "carrier on ib1" wait_carrier ib1 B 60
check "ping A->B before the fault" ns_ping_all A 10.0.0.2 3
snap f A:ib0
dmesg_mark sqe
check "fault armed: A's next UD send fails, its QP enters SQE" sh -c "echo ud_send_err $qpn > $fault"
# the failed send (and what was flushed behind it) is lost; the pings after the recovery are answered
# 10 pings 0.2 s apart, passing on any reply: bounded (about 4 s) whether or not A recovers
check "A's sends recovered: a ping answered after the fault" ns_reach A 10.0.0.2 10
check "then every ping answered" ns_ping_all A 10.0.0.2 5
check_delta "the failed send counted (tx_wc_errors)" f A:ib0 tx_wc_errors -ge 1
check_delta "one recovery (ud_qp_recoveries)" f A:ib0 ud_qp_recoveries -eq 1
check_delta "no failed recovery" f A:ib0 ud_qp_recovery_failures -eq 0
check "recovery logged" dmesg_has 'UD QP 0x[0-9a-f]+: send queue error \(SQE\), back to RTS'

# ---- receives go on in SQE
snap r A:ib0 ib:softib0
check "fault armed: A's UD QP in SQE now, its next send fails (ud_sqe)" sh -c "echo ud_sqe $qpn > $fault"
ns_exec B ping -c 3 -i 0.2 -W 1 10.0.0.1 >/dev/null 2>&1 || true	# replies may fail: the checks say
check_delta "B's packets placed into A's QP in SQE (softib ud_rx_send_queue_stopped)" r ib:softib0 ud_rx_send_queue_stopped -ge 1
check_delta "none dropped for the QP state (softib drop_no_qp)" r ib:softib0 drop_no_qp -eq 0
check "A recovered: a ping answered" ns_reach A 10.0.0.2 10
check "then every ping answered" ns_ping_all A 10.0.0.2 5
check_delta "one more recovery (ud_qp_recoveries)" r A:ib0 ud_qp_recoveries -eq 1

# ---- ud_sqe with sends queued: the oldest fails, those behind it are flushed at once
snap q A:ib0 ib:softib0
check "fault armed: A's next UD send held 8 s (delay_ud)" sh -c "echo delay_ud 1 8000 > $fault"
# the first request is held, the others queue behind it
ns_exec A ping -c 3 -i 0.2 -W 1 10.0.0.2 >/dev/null 2>&1 &
sleep 1
check "ud_sqe with A's sends queued" sh -c "echo ud_sqe $qpn > $fault"
check "the queued sends complete in error before the hold ends (tx_wc_errors +3)" wait_for 4 delta_ge q A:ib0 tx_wc_errors 3
check_delta "those behind the failed one flushed (softib flushed_wqes)" q ib:softib0 flushed_wqes -ge 2
check "A recovered: a ping answered" ns_reach A 10.0.0.2 10
check_delta "one more recovery (ud_qp_recoveries)" q A:ib0 ud_qp_recoveries -eq 1
wait

# ---- a cleared fault does not fire
snap c A:ib0
check "ud_send_err armed then cleared: not listed" sh -c "echo ud_send_err $qpn > $fault && echo clear > $fault && ! grep -q ud_send_err $fault"
check "every ping answered" ns_ping_all A 10.0.0.2 3
check_delta "no send failed (tx_wc_errors)" c A:ib0 tx_wc_errors -eq 0

# ---- clear after ud_sqe with nothing queued: the QP is in SQE and the error has happened, only
# its report (the completion of the next post) is owed. clear cancels armed faults, not that:
# the next post still fails, the interface recovers once and every ping is answered after.
# A sends on its own (ND, MLD): if it posts before the clear, the error is reported first and
# the clear proves nothing, so the owed error must still be listed right after the clear (it is
# unlisted only once reported); else A recovers and it is tried again, 5 times at most.
owed_after_clear() { echo "ud_sqe $qpn" > $fault && echo clear > $fault && grep -q '^ud_sqe ' $fault; }
tries=0
while snap z A:ib0; ! owed_after_clear; do
    tries=$((tries + 1)); [ $tries -ge 5 ] && break
    ns_reach A 10.0.0.2 10 >/dev/null 2>&1	# the error came before the clear: A recovers
done
diag "ud_sqe then clear: $tries attempt(s) without the error listed after the clear; fault file now: $(cat $fault | tr '\n' ' ')"
check "ud_sqe with nothing queued, then clear: the owed error still listed after the clear" test $tries -lt 5
# bounded: 10 pings 0.2 s apart (about 4 s with -W 2) pass on any reply
check "A recovered after the clear: a ping answered" ns_reach A 10.0.0.2 10
check "then every ping answered" ns_ping_all A 10.0.0.2 5
check_delta "one recovery (ud_qp_recoveries)" z A:ib0 ud_qp_recoveries -eq 1

# ---- the QP in ERROR (a fatal asynchronous error) is reset and brought back to RTS
snap e A:ib0
dmesg_mark err
ns_exec A ping -c 25 -i 0.2 -W 1 10.0.0.2 >/tmp/ud-err-ping.out 2>&1 &
ping_pid=$!
sleep 1
check "fault armed: A's UD QP in ERROR now, its fatal event 100 ms later (qp_fatal)" sh -c "echo qp_fatal $qpn 100 > $fault"
wait $ping_pid || true
diag "pings across the error: $(grep 'packets transmitted' /tmp/ud-err-ping.out)"
check "A's UD QP repaired: a ping answered within 4 s" ns_reach A 10.0.0.2 20
check "then every ping answered" ns_ping_all A 10.0.0.2 10
check_delta "one repair (ud_qp_error_recoveries)" e A:ib0 ud_qp_error_recoveries -eq 1
check_delta "no failed repair" e A:ib0 ud_qp_error_recovery_failures -eq 0
check_delta "the flushed receives counted as flushes (rx_flushed)" e A:ib0 rx_flushed -ge 1
check_delta "and not as receive errors (rx_wc_errors)" e A:ib0 rx_wc_errors -eq 0
qpn_after=0x$(ip netns exec A cat /sys/class/net/ib0/address | cut -d: -f2-4 | tr -d :)
check "the same QP: its QPN (the link address) unchanged ($qpn_after)" test "$qpn_after" = "$qpn"
check "repair logged" dmesg_has 'UD QP 0x[0-9a-f]+: in ERROR: reset and back to RTS'
# B's ARP request reaches A only through A's broadcast-group attachment; A's reply and its own
# requests go out over the repaired QP
ns_ip A neigh flush dev ib0; ns_ip B neigh flush dev ib1
check "broadcast after the repair: B resolves A by ARP and reaches it" ns_ping_all B 10.0.0.1 3
arp_a_b() { ns_ip A neigh flush dev ib0 && ns_exec A /usr/bin/ping -c 2 -i 0.2 -W 2 10.0.0.2 >/dev/null; }
check "and A resolves B by ARP" arp_a_b

# ---- a move to ERR (no event) with ifdown/ifup racing the repair: ifdown cancels the work,
# ifup asks again, and the QP is repaired by whichever ran
snap d A:ib0
check "fault armed: A's UD QP in ERROR (qp_err, no event), then A down and up at once" \
    sh -c "echo qp_err $qpn > $fault && /usr/sbin/ip -n A link set ib0 down && /usr/sbin/ip -n A link set ib0 up"
check "carrier on ib0 again" wait_carrier ib0 A 60
check "A reaches B after the repair" ns_reach A 10.0.0.2 20
check_delta "one repair (ud_qp_error_recoveries)" d A:ib0 ud_qp_error_recoveries -eq 1
check_delta "no failed repair" d A:ib0 ud_qp_error_recovery_failures -eq 0

# ---- a repair that cannot succeed: softib's `modify_err QPN` refuses every move of A's UD QP
# to RESET, INIT, RTR or RTS. After qp_fatal the repair fails 5 times in a row (200, 400, 800,
# 1600 ms apart), then gives up: the carrier is held off (NO-CARRIER, operstate not up; the
# broadcast group stays joined, so only the hold keeps it off) and the repair is rearmed 30 s
# later. With the fault cleared that rearmed attempt repairs the same QP: carrier on, every
# datagram ping answered.
# the link line itself must say NO-CARRIER: a failed `ip` is not a held carrier
no_carrier_a() { ip -n A -o link show dev ib0 2>/dev/null | grep -q 'NO-CARRIER'; }
operstate_a() { ip netns exec A cat /sys/class/net/ib0/operstate; }
snap g A:ib0
dmesg_mark giveup
check "fault armed: A's UD QP refuses RESET/INIT/RTR/RTS (modify_err), listed" \
    sh -c "echo modify_err $qpn > $fault && grep -q '^modify_err 0x' $fault"
check "qp_fatal on A's UD QP" sh -c "echo qp_fatal $qpn 100 > $fault"
check "the repair fails 5 times in a row (ud_qp_error_recovery_failures +5)" \
    wait_for 20 delta_ge g A:ib0 ud_qp_error_recovery_failures 5
check "then it gives up: the carrier held off (ud_carrier_held +1)" wait_for 5 delta_ge g A:ib0 ud_carrier_held 1
check "A's link shows NO-CARRIER" wait_for 5 no_carrier_a
diag "ip link: $(ip -n A -o link show dev ib0 | cut -c1-120); operstate $(operstate_a)"
operstate_not_up() { _os=$(operstate_a) && [ -n "$_os" ] && [ "$_os" != up ]; }
check "operstate not up" operstate_not_up
check "give-up logged" dmesg_has 'UD QP 0x[0-9a-f]+: still in ERROR after 5 repairs failed'
sleep 5
check "5 s later the carrier is still held off (the broadcast join does not turn it on)" no_carrier_a
check_delta "exactly 5 failed repairs" g A:ib0 ud_qp_error_recovery_failures -eq 5
check_delta "no repair succeeded" g A:ib0 ud_qp_error_recoveries -eq 0
check_delta "no rearm yet (30 s)" g A:ib0 ud_repair_rearms -eq 0
check "fault cleared (modify_err QPN 0): not listed" sh -c "echo modify_err $qpn 0 > $fault && ! grep -q '^modify_err' $fault"
check "the rearmed attempt repairs the QP: carrier on again within 40 s" wait_carrier ib0 A 40
check_delta "one rearm (ud_repair_rearms)" g A:ib0 ud_repair_rearms -eq 1
check_delta "one repair (ud_qp_error_recoveries)" g A:ib0 ud_qp_error_recoveries -eq 1
check_delta "still 5 failed repairs" g A:ib0 ud_qp_error_recovery_failures -eq 5
check_delta "one give-up (ud_carrier_held)" g A:ib0 ud_carrier_held -eq 1
diag "operstate after the rearm: $(operstate_a)"
check "every datagram ping A->B answered" ns_ping_all A 10.0.0.2 10
check "every datagram ping B->A answered" ns_ping_all B 10.0.0.1 10
qpn_after=0x$(ip netns exec A cat /sys/class/net/ib0/address | cut -d: -f2-4 | tr -d :)
check "the same QP after the rearm ($qpn_after)" test "$qpn_after" = "$qpn"

# ---- connected mode, RC traffic both ways while A's UD QP enters ERROR. The queue the repair
# stops carries RC sends too, and RC send completions must not wake it while the UD QP drains
# (a UD send posted after the drain's last look is discarded by the reset with no completion:
# its ring slot stays taken and every later repair times out). A second repair after it shows
# that no slot was lost.
cm_on() { ip netns exec "$1" sh -c "echo connected > /sys/class/net/$2/mode" && ip -n "$1" link set "$2" mtu 65520; }
cm_both() { cm_on A ib0 && cm_on B ib1; }
check "A and B in connected mode, MTU 65520" cm_both
check "RC up: a 60000-byte ping A->B answered" wait_for 30 ns_reach A 10.0.0.2 1 -s 60000
snap m A:ib0
ns_exec A /usr/bin/ping -c 30 -i 0.1 -W 5 -s 60000 10.0.0.2 >/tmp/ud-cm-a.out 2>&1 &
pa=$!
ns_exec B /usr/bin/ping -c 30 -i 0.1 -W 5 -s 60000 10.0.0.1 >/tmp/ud-cm-b.out 2>&1 &
pb=$!
sleep 1
check "qp_fatal on A's UD QP with 60000-byte pings both ways" sh -c "echo qp_fatal $qpn 100 > $fault"
wait $pa || true; wait $pb || true
diag "A->B: $(grep 'packets transmitted' /tmp/ud-cm-a.out); B->A: $(grep 'packets transmitted' /tmp/ud-cm-b.out)"
diag "UD sends dropped while the QP drained (tx_drop_ud_repair): $(delta m A:ib0 tx_drop_ud_repair)"
check "every RC ping A->B answered across the repair" grep -q '^30 packets transmitted, 30 received,' /tmp/ud-cm-a.out
check "every RC ping B->A answered across the repair" grep -q '^30 packets transmitted, 30 received,' /tmp/ud-cm-b.out
check_delta "one repair (ud_qp_error_recoveries)" m A:ib0 ud_qp_error_recoveries -eq 1
check_delta "no failed repair" m A:ib0 ud_qp_error_recovery_failures -eq 0
ns_ip A neigh flush dev ib0; ns_ip B neigh flush dev ib1
check "UD after the repair: B resolves A by ARP and reaches it" ns_ping_all B 10.0.0.1 3
check "and A resolves B by ARP" arp_a_b
ns_exec A sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts'
check_output "broadcast ping from B: A answers" 'bytes from 10\.0\.0\.1:' ns_exec B /usr/bin/ping -b -c 3 -i 0.2 -W 2 10.0.0.255
snap n A:ib0
check "a second qp_fatal, no traffic" sh -c "echo qp_fatal $qpn 100 > $fault"
check "A reaches B after the second repair" ns_reach A 10.0.0.2 20
check_delta "the second repair succeeded: no UD send slot lost (ud_qp_error_recoveries)" n A:ib0 ud_qp_error_recoveries -eq 1
check_delta "no failed repair" n A:ib0 ud_qp_error_recovery_failures -eq 0
