#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib knobs for connected-mode tests, under the unmodified in-tree ib_ipoib: `delay_cm` holds
# a CM REQ on the wire (the connection comes up only after the delay: while it is held the
# peer has no new RC QP and the active QP waits in INIT; elapsed time is only checked loosely),
# and `rx_stop` / `rx_start` make every RC QP of one host answer each SEND with an RNR NAK
# until cleared (in-tree ipoib asks rnr_retry 0, so each attempt ends in RNR_RETRY_EXC and a
# reconnect; RNR NAKs are counted; after rx_start traffic resumes and no more NAKs come);
# `rx_trickle 3000` lets one SEND through per 3 s, reconnects included: none in the first 3 s,
# then one (a ping answered) well before a stopped receiver would, with RNR NAKs counted.
# Malformed commands are refused with -EINVAL and change nothing. ib0 (A, softib0) is
# connected, ib1 (B, softib1) stays in datagram mode until the last part: every REQ comes from
# A, every RC QP on softib1 is passive, B answers over UD. Last, B goes connected too and both
# hosts' REQs are held at once (the crossing a connected-mode test will force): neither host
# gets a passive QP until the delay is over, then both connect (in-tree: two one-way RC
# connections). "While held" states come from one snapshot of both hosts taken right after
# the holds are seen, bracketed by each receiving host's cm_rx_req counter: unchanged after the
# snapshot means no held REQ had been delivered when it was taken, so it shows the held state
# whatever the guest's speed. A REQ delivered before the snapshot ended (a guest starved
# for the whole delay) fails the checks, never skips them.
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 60

F0=/sys/kernel/debug/softib/softib0/fault
F1=/sys/kernel/debug/softib/softib1/fault
cnt() { cat /sys/class/infiniband/$1/ports/1/hw_counters/$2; }
rc_qpns() { rdma resource show qp link "$1/1" | grep 'type RC' | sed -n 's/.*lqpn \([0-9]*\).*/\1/p' | sort -n | tr '\n' ' '; }
now_cs() { sed 's/^\([0-9]*\)\.\([0-9][0-9]\).*/\1\2/' /proc/uptime; }	# uptime in 1/100 s
# The "while held" window is timed, and a debug-kernel guest on a loaded host forks slowly: the
# steps between the knob and the snapshot use shell builtins only (NOW, read) and one rdma call.
now_var() { read _u _x < /proc/uptime; _f=${_u#*.}; _f=${_f#0}; NOW=$(( ${_u%.*} * 100 + _f )); }
D0=/sys/class/infiniband/softib0/ports/1/hw_counters/delayed_fault
D1=/sys/class/infiniband/softib1/ports/1/hw_counters/delayed_fault
# held_wait N0 N1 TENTHS: poll (builtins only) until delayed_fault is N0 on softib0 and N1 on
# softib1 (N1 "-" = don't care)
held_wait() {
    _i=0
    while [ $_i -lt $3 ]; do
        read _a < $D0; read _b < $D1
        [ "$_a" -eq "$1" ] && { [ "$2" = - ] || [ "$_b" -eq "$2" ]; } && return 0
        sleep 0.1; _i=$((_i + 1))
    done
    return 1
}
# rc_of SNAPSHOT DEV: rc_list on a saved `rdma resource show qp`
rc_of() { printf '%s\n' "$1" | grep "link $2/1 " | grep 'type RC' |
          sed -n 's/.*lqpn \([0-9]*\) .* state \([A-Z]*\) .*/\1:\2/p' | tr '\n' ' '; }
# refused FILE CMD: the write fails with EINVAL
refused() { _e=$(sh -c "echo '$2' > $1" 2>&1) && return 1; case $_e in *'Invalid argument'*) return 0;; esac; echo "$_e"; return 1; }
# rc_list DEV: DEV's RC QPs as "qpn:STATE" words; new_of LIST QPNS: the words whose QPN is not
# in QPNS; one_init WORDS: exactly one word, in INIT (an active QP waiting for its REP: a
# passive QP, created when a REQ arrives, is in RTR or later)
rc_list() { rdma resource show qp link "$1/1" | grep 'type RC' |
            sed -n 's/.*lqpn \([0-9]*\) .* state \([A-Z]*\) .*/\1:\2/p' | tr '\n' ' '; }
new_of() { for _l in $1; do case " $2 " in *" ${_l%%:*} "*) ;; *) printf '%s ' "$_l";; esac; done; }
one_init() { set -- $1; [ $# = 1 ] && [ "${1#*:}" = INIT ]; }
ping_big() { /sbin/ip netns exec A /usr/bin/ping -c 1 -W 2 -s 60000 10.0.12.2 >/dev/null; }
recovers() { for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do ping_big && return 0; done; return 1; }

wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
echo connected > /sys/class/net/ib0/mode
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.12.1/24 && ns_addr B ib1 10.0.12.2/24
ip -n A link set ib0 mtu 65520
both_up() { has_carrier ib0 A && has_carrier ib1 B; }
check "carrier on both" wait_for 60 both_up
dmesg_mark cmfaults

# --- malformed commands: -EINVAL, the active faults stay as they were
check "delay_cm rtu 3 1234 accepted" sh -c "echo 'delay_cm rtu 3 1234' > $F0"
check_output "fault file lists it (attribute 0x14)" '^delay_cm 0x0014 3 1234$' cat $F0
before=$(cat $F0)
for c in "delay_cm" "delay_cm req" "delay_cm req 1" "delay_cm bogus 1 100" "delay_cm req x 100" \
         "delay_cm req 1 60001" "delay_cm req 1 100 7" "delay_cm req -1 100" "delay_cm 0x10000 1 100" \
         "rx_stop 1" "rx_start now" "rx_stopp" "rx_trickle" "rx_trickle x" "rx_trickle 60001"; do
    check "'$c' refused with EINVAL" refused $F0 "$c"
done
check "fault state unchanged by the refused commands" test "$(cat $F0)" = "$before"
check "clear cancels delay_cm" sh -c "echo clear > $F0 && test -z \"\$(cat $F0)\""

# --- delay_cm: the REQ of a fresh connection is held for 2.5 s
check "warm-up ping -s 60000 A->B (first connection)" wait_for 60 ping_big
# Kill that connection but keep ARP and the path cached, so the next packet sends a REQ at
# once: B's passive QP vanishes, A's next send fails with RETRY_EXC, ipoib frees the neighbour
# and reaps its TX QP (as in softib-faults-rc).
for q in $(rc_qpns softib1); do echo "vanish $q" > $F1; done
ping_big
check "A's old connection is gone" wait_for 20 sh -c "! rdma resource show qp link softib0/1 | grep -q 'type RC'"
qb=$(rc_qpns softib1); d0=$(cnt softib0 delayed_fault)
diag "softib1 RC QPs before: $qb"
# new_qp DEV QPNS: DEV has an RC QP whose QPN is not in QPNS
new_qp() { for _q in $(rc_qpns "$1"); do case " $2 " in *" $_q "*) ;; *) return 0;; esac; done; return 1; }
now_var; t0=$NOW	# before the knob: nothing can be held earlier than this
rq0=$(cnt softib1 cm_rx_req)
echo 'delay_cm req 1 2500' > $F0; knob=$?
( ns_exec A ping -c 1 -W 20 -s 60000 10.0.12.2 > /tmp/delay.out 2>&1; echo $? > /tmp/delay.rc ) &
held_wait $((d0 + 1)) - 20; taken=$?
snap=$(rdma resource show qp)	# one snapshot of both hosts, at once
read rq1 < /sys/class/infiniband/softib1/ports/1/hw_counters/cm_rx_req
now_var; ts=$((NOW - t0))
s0=$(rc_of "$snap" softib0); s1=$(rc_of "$snap" softib1)
check "delay_cm req 1 2500 on softib0" test $knob = 0
check "the REQ is taken (delayed_fault +1)" test $taken = 0
diag "while held (snapshot done ${ts}0 ms after the knob): softib0 [$s0] softib1 [$s1]"
check "delay_cm consumed (fault file empty)" test -z "$(cat $F0)"
# held_check REQS DESC cmd...: REQS is "before after" of the receiving hosts' cm_rx_req sums,
# read before the knob and after the snapshot: equal, the snapshot was taken while every REQ
# was still held and the check is judged; else it fails (the hold ended before the state was
# read: on a slow guest, a longer delay would be the fix, not a skip).
held_check() {
    _r=$1 _d=$2; shift 2
    if [ "${_r% *}" = "${_r#* }" ]; then check "$_d" "$@"
    else not_ok "$_d"; diag "a held REQ was delivered before the snapshot ended (cm_rx_req $_r): it cannot show the held state"; fi
}
held_check "$rq0 $rq1" "while held: A's only RC QP is its active one, in INIT" one_init "$s0"
held_check "$rq0 $rq1" "while held: no new RC QP on softib1 (REQ not delivered)" test -z "$(new_of "$s1" "$qb")"
check "ping over the delayed connection answered" wait_for 25 sh -c 'test -s /tmp/delay.rc && test "$(cat /tmp/delay.rc)" = 0'
# ping's own RTT of that one packet: it waited in ipoib's queue until the connection was up
rtt=$(sed -n 's/.*icmp_seq=1 .*time=\([0-9]*\).*/\1/p' /tmp/delay.out)
diag "first reply: RTT ${rtt:-?} ms, $(( $(now_cs) - t0 ))0 ms after the knob was set (2500 ms REQ delay)"
diag "$(cat /tmp/delay.out)"
check "connection came up only after the delay (loosely: RTT >= 2000 ms)" test "${rtt:-0}" -ge 2000
check "softib1 has a new passive RC QP now" new_qp softib1 "$qb"
check "exactly one MAD was delayed" test "$(cnt softib0 delayed_fault)" -eq $((d0 + 1))
check "next ping -s 60000 at once" ping_big

# --- rx_stop: softib1's RC QPs stop consuming receive WQEs
n0=$(cnt softib0 rnr_nak); x0=$(cnt softib0 rnr_retry_exceeded)
check "rx_stop on softib1" sh -c "echo rx_stop > $F1"
check_output "fault file lists rx_stop" '^rx_stop$' cat $F1
check_rc "ping -s 60000 A->B gets no reply while stopped" 1 /sbin/ip netns exec A /usr/bin/ping -c 3 -W 2 -s 60000 10.0.12.2
n1=$(cnt softib0 rnr_nak); x1=$(cnt softib0 rnr_retry_exceeded)
diag "rnr_nak $n0 -> $n1, rnr_retry_exceeded $x0 -> $x1"
check "RNR NAKs counted on the requester (softib0)" test "$n1" -gt "$n0"
check "in-tree ipoib (rnr_retry 0) saw RNR_RETRY_EXC" test "$x1" -gt "$x0"
check "rx_start on softib1" sh -c "echo rx_start > $F1 && test -z \"\$(cat $F1)\""
check "traffic resumes after rx_start" recovers
n2=$(cnt softib0 rnr_nak)
ns_exec A ping -c 5 -s 60000 10.0.12.2 >/dev/null 2>&1
check "no RNR NAK after rx_start" test "$(cnt softib0 rnr_nak)" -eq "$n2"
check "clear also ends rx_stop" sh -c "echo rx_stop > $F1 && echo clear > $F1 && test -z \"\$(cat $F1)\""

# --- rx_trickle: one SEND per 3 s on softib1, one clock for every RC QP, the new ones too.
# In-tree's first NAKed send fails (rnr_retry 0) and it reconnects on new QPs: a per-QP
# `rnr QPN trickle` would not reach them; this does. The k-th SEND softib1 takes comes at
# least k*3000 ms after the knob, so the k-th reply (sorted) comes no earlier: judged on each
# reply's own receive time (ping -D, wall clock) against the wall clock read before the knob,
# whatever the guest's speed. Then one does pass: the first reply within 2*3000 ms (a slot
# may go to another SEND, e.g. IPv6 ND) + 3000 ms for the reconnects; rx_stop would answer none.
# wall_ms: the wall clock in ms (busybox date has whole seconds only; adjtimex without options
# only reads it)
wall_ms() { adjtimex | awk '/tv_sec/ { s = $2 } /tv_usec/ { u = $2 } END { printf "%d%03d\n", s, u / 1000 }'; }
n0=$(cnt softib0 rnr_nak)
t_arm=$(wall_ms)	# before the knob: no SEND can pass earlier than t_arm + 3000
echo 'rx_trickle 3000' > $F1; knob=$?
# the ping right after the knob; -w 10: sends for 10 s, whatever is answered
ns_exec A ping -D -i 0.2 -w 10 -W 2 -s 60000 10.0.12.2 > /tmp/trickle.out 2>&1
n1=$(cnt softib0 rnr_nak)
# replies' receive times, in ms after the knob, in order
rt=$(sed -n 's/^\[\([0-9]*\)\.\([0-9][0-9][0-9]\)[0-9]*\] [0-9]* bytes from .*icmp_seq=.*/\1\2/p' /tmp/trickle.out |
     while read t; do echo $((t - t_arm)); done | sort -n | tr '\n' ' ')
diag "rx_trickle 3000: replies at [ $rt] ms after the knob; softib0 rnr_nak $n0 -> $n1"
diag "$(tail -n 2 /tmp/trickle.out)"
# slots_kept TIMES: the k-th time is at least k*3000 ms (less one jiffy: the gate counts jiffies)
slots_kept() { _k=0; for _t in $1; do _k=$((_k + 1)); [ "$_t" -ge $((_k * 3000 - 10)) ] || return 1; done; }
first_by() { _lim=$2; set -- $1; [ $# -ge 1 ] && [ "$1" -le "$_lim" ]; }
check "rx_trickle 3000 on softib1" test $knob = 0
check_output "fault file lists it" '^rx_trickle 3000$' cat $F1
check "no reply before its 3000 ms slot (none in the first 3 s, over reconnects)" slots_kept "$rt"
check "a SEND passes after 3000 ms: the first reply within 9000 ms" first_by "$rt" 9000
check "RNR NAKs counted on the requester (softib0 rnr_nak)" test "$n1" -gt "$n0"
check "clear ends rx_trickle" sh -c "echo clear > $F1 && test -z \"\$(cat $F1)\""
check "traffic resumes after the clear" recovers

# --- crossing REQs: both hosts connected, both REQs held 4 s, so both are in flight at once.
# 4 s is close to in-tree's 4.2 s REQ timeout: ib_cm may resend a REQ (not held, N is 1) before
# the REP is back, and the receiver ignores the duplicate; nothing below depends on it.
ip -n B link set ib1 type ipoib mode connected; ip -n B link set ib1 mtu 65520
ping_big_b() { /sbin/ip netns exec B /usr/bin/ping -c 1 -W 2 -s 60000 10.0.12.1 >/dev/null; }
check "B->A ping -s 60000 in connected mode (B's path and first connection)" wait_for 60 ping_big_b
# kill both hosts' connections, keeping ARP and paths cached: every RC QP vanishes, and the next
# send each way fails with RETRY_EXC; both REQs then leave as soon as their pings start
for q in $(rc_qpns softib0); do echo "vanish $q" > $F0; done
for q in $(rc_qpns softib1); do echo "vanish $q" > $F1; done
ping_big; ping_big_b
no_rc() { ! rdma resource show qp | grep -q 'type RC'; }
wait_for 30 no_rc
qa=$(rc_qpns softib0); qb=$(rc_qpns softib1)
diag "RC QPs before: softib0 [$qa] softib1 [$qb]"
d0=$(cnt softib0 delayed_fault); e0=$(cnt softib1 delayed_fault)
rm -f /tmp/xa.rc /tmp/xb.rc
now_var; t0=$NOW
rq0=$(( $(cnt softib0 cm_rx_req) + $(cnt softib1 cm_rx_req) ))
echo 'delay_cm req 1 4000' > $F0 && echo 'delay_cm req 1 4000' > $F1; knob=$?
( ns_exec A ping -c 1 -W 30 -s 60000 10.0.12.2 > /tmp/xa.out 2>&1; echo $? > /tmp/xa.rc ) &
( ns_exec B ping -c 1 -W 30 -s 60000 10.0.12.1 > /tmp/xb.out 2>&1; echo $? > /tmp/xb.rc ) &
held_wait $((d0 + 1)) $((e0 + 1)) 30; taken=$?
snap=$(rdma resource show qp)
read _q0 < /sys/class/infiniband/softib0/ports/1/hw_counters/cm_rx_req
read _q1 < /sys/class/infiniband/softib1/ports/1/hw_counters/cm_rx_req
rq1=$((_q0 + _q1))
now_var; ts=$((NOW - t0))
s0=$(rc_of "$snap" softib0); s1=$(rc_of "$snap" softib1)
check "delay_cm req 1 4000 on both hosts" test $knob = 0
check "both REQs taken (delayed_fault +1 on each host)" test $taken = 0
diag "while held (snapshot done ${ts}0 ms after the knobs): softib0 [$s0] softib1 [$s1]"
held_check "$rq0 $rq1" "while held: softib0's only new RC QP is its active one, in INIT (no passive QP)" one_init "$(new_of "$s0" "$qa")"
held_check "$rq0 $rq1" "while held: softib1's only new RC QP is its active one, in INIT (no passive QP)" one_init "$(new_of "$s1" "$qb")"
both_new() { new_qp softib0 "$qa" && new_qp softib1 "$qb"; }
check "both pings answered" wait_for 35 sh -c 'test "$(cat /tmp/xa.rc 2>/dev/null)" = 0 && test "$(cat /tmp/xb.rc 2>/dev/null)" = 0'
ra=$(sed -n 's/.*icmp_seq=1 .*time=\([0-9]*\).*/\1/p' /tmp/xa.out); rb=$(sed -n 's/.*icmp_seq=1 .*time=\([0-9]*\).*/\1/p' /tmp/xb.out)
diag "crossing: RTT A->B ${ra:-?} ms, B->A ${rb:-?} ms"
check "both waited for the delay (loosely: RTT >= 3000 ms each)" test "${ra:-0}" -ge 3000 -a "${rb:-0}" -ge 3000
check "each host now has a new passive RC QP (in-tree: two one-way connections)" both_new
diag "$(rdma resource show qp | grep 'type RC')"

# teardown with a MAD still on the wire: A's DREQ is held 30 s, far past the end of the
# scenario, so the harness unloads ipoib and softib with it held (freed at rmmod; kmemleak and
# KASAN on the debug kernel watch that path)
h0=$(cnt softib0 delayed_fault)
check "delay_cm dreq 1 30000 on softib0" sh -c "echo 'delay_cm dreq 1 30000' > $F0"
check "link down both" sh -c '/sbin/ip -n A link set ib0 down && /sbin/ip -n B link set ib1 down'
check "A's DREQ is held (delayed_fault +1)" wait_for 10 sh -c "test \$(cat /sys/class/infiniband/softib0/ports/1/hw_counters/delayed_fault) -gt $h0"
check "kernel log clean" dmesg_clean
diag "$(rdma statistic show link softib0/1)"
diag "$(rdma statistic show link softib1/1)"
ns_delete_all
exit $(tap_status)
