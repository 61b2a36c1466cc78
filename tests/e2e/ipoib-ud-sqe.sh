#!/bin/sh
# ib_ipoib_cm datagram mode: the UD QP comes back from the SQE state. softib's fault
# `ud_send_err QPN` fails the next send of A's UD QP with a local error, which moves the QP to
# SQE (IBA 10.3.1): every later send is flushed until the QP is modified back to RTS. The
# interface's work does that after the failed completion (counted ud_qp_recoveries, logged at
# most 10 times per 5 s), and A reaches B again; without it A never sends again. `ud_sqe` with
# sends queued fails the oldest and flushes the rest at once; a fault cleared does not fire;
# `clear` after `ud_sqe` with nothing queued keeps the error owed, so A still recovers.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 180
# tier: long
. /e2e/lib.sh
plan 30

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
