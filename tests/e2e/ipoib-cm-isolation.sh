#!/bin/sh
# Connected mode, three hosts of ours: a stalled peer does not hold up traffic to a healthy
# one (docs/connected.md §3 "Peer isolation"). A (icm0) sends 60000-byte pings every 20 ms to C
# (icm2) while pinging B (icm1) every 200 ms; C's end of A's connection is stalled in three
# ways, one after the other, each on a fresh connection:
#   forever: softib `rnr QPN forever` (C's receiver answers every SEND with an RNR NAK)
#   trickle: softib `rnr QPN trickle 3000` (one SEND accepted every 3 s, the rest NAKed)
#   gone:    C's port down (`port_down 1`): A's sends find no one
# Each time, while C stalls: all 60 pings to B are answered (sent = answered), no round trip
# to B reaches 2 s (the timing itself is for `make bench`), 10 broadcast pings from A (UD:
# datagrams never wait on RC) are each answered by B, a 5 Mbit/s UDP stream A -> B loses no
# datagram beyond those B's sockets counted dropped (RcvbufErrors: the receiving iperf3 behind
# in a busy guest, not the path) and in every 1 s interval delivers at least a tenth of what
# its rate offers (a stopped netdev queue loses nothing: it blocks the sender), a TCP stream A -> B
# delivers in every 1 s interval B's
# iperf3 reports, and the kernel never logs "NETDEV WATCHDOG"; in the forever and trickle
# cases debugfs shows A's connection to C with sends in flight and stalled= meanwhile, and
# the send watchdog tears it down. In the forever case C also sends A 48 60000-byte pings (20 ms
# apart): A's replies (its ICMP control socket's) all reach its driver (Icmp OutEchoReps), none
# is answered or dropped, and the connection's ring is full, so the rest wait on its queue, far
# more than that socket's 2 x 64 KiB send buffer; meanwhile B's 5 pings to A are all answered
# and A's Icmp OutErrors does not move (held packets give their send-buffer charge back,
# core/ipoib_hold.h).
# A connection at its own send bound holds only its own peer's packets. Then four peers
# (D, E, F, G) stall at once, as many as the RC bound has rings: the netdev queue runs on (UD,
# ARP and RC pings to B answered, tx_timeouts unmoved), the last stalled one is refused
# the bound's reserve and its packets go out once a stalled peer recovers (below).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=7
# load: ib_ipoib_cm ports=softib0:1,softib1:1,softib2:1,softib3:1,softib4:1,softib5:1,softib6:1 ifname=icm%d
# mem: 1024
# timeout: 360
# kernels: stock debug
. /e2e/lib.sh
plan 71

F2=/sys/kernel/debug/softib/softib2/fault
dmesg_mark isolation
check "icm0, icm1, icm2 exist" wait_for 30 sh -c 'for i in 0 1 2; do test -e /sys/class/net/icm$i || exit 1; done'
check "all three -> connected mode" sh -c 'for i in 0 1 2; do echo connected > /sys/class/net/icm$i/mode || exit 1; done'
addr_b=$(cat /sys/class/net/icm1/address); addr_c=$(cat /sys/class/net/icm2/address)
ns_create A B C
ns_move icm0 A && ns_move icm1 B && ns_move icm2 C
ns_addr A icm0 10.0.9.1/24 && ns_addr B icm1 10.0.9.2/24 && ns_addr C icm2 10.0.9.3/24
up3() { has_carrier icm0 A && has_carrier icm1 B && has_carrier icm2 C; }
check "carrier on all three" wait_for 60 up3
check "static neighbours B and C on A" sh -c "/sbin/ip -n A neigh replace 10.0.9.2 lladdr $addr_b nud permanent dev icm0 &&
    /sbin/ip -n A neigh replace 10.0.9.3 lladdr $addr_c nud permanent dev icm0"
check "warm-up: A reaches B" wait_for 30 ns_reach A 10.0.9.2 1
check "B answers broadcast pings" ns_exec B sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts'
servers() { iperf3_server B 5201 && iperf3_server B 5202; }
check "iperf3 servers on B (UDP 5201, TCP 5202)" servers

guid_c=$(echo "$addr_c" | cut -d: -f13-20)
# a_to_c: A's established connection to C (active, or C's bidirectional one A accepted)
a_to_c() { grep -E "peer=[0-9a-f:]*$guid_c .* state=established " $(cm_file icm0 connections); }
# c_conn: a big ping from A to C answered, over an established connection
c_conn() {
    wait_for 60 sh -c '/sbin/ip netns exec A /usr/bin/ping -c 1 -W 2 -s 60000 10.0.9.3' &&
        wait_for 10 a_to_c
}
no_netdev_watchdog() { dmesg_since_mark >/dev/null && ! dmesg_has 'NETDEV WATCHDOG'; }
rtt_max() { sed -n 's/.*time=\([0-9.]*\).*/\1/p' "$1" | sort -n | tail -n 1; }
# tcp_each_second FILE N: the server's report in an `iperf3 --get-server-output` run (FILE) has
# at least N whole 1 s intervals and none of them received nothing (a final part-second
# interval is not judged); prints the per-interval figures
tcp_each_second() {
    awk -v n="$2" '/^Server output:/ { s = 1; next }
        s && !/sender|receiver/ && match($0, /[0-9.]+-[0-9.]+ +sec +[0-9.]+ [KMG]?Bytes/) {
            split(substr($0, RSTART, RLENGTH), f, /[- ]+/)
            if (f[2] - f[1] < 0.5) next
            n1++; v = v " " f[4] f[5]; if (f[4] + 0 == 0) z++ }
        END { printf "%d whole intervals, %d received nothing:%s\n", n1, z, v; exit !(n1 >= n && z == 0) }' "$1"
}
# A's replies to C held on its stalled connection keep no charge on A's ICMP control socket
# (core/ipoib_hold.h): its send buffer (2 x 64 KiB) stays free for A's replies to B. C's burst
# (48 pings of 60000 bytes, 20 ms apart) ends within about 2 s; then what reached A and what
# waits: every reply built (Icmp OutEchoReps), none answered nor dropped at the queue bounds, and
# the connection's ring full (tx_inflight = rc_send conn_limit), so at least 48 - conn_limit
# of them wait on the connection's queue; then B's 5 pings to A
snmp_icmp() { /sbin/ip netns exec $1 awk -v f=$2 '/^Icmp:/ { if (!h) { for (k = 1; k <= NF; k++) n[$k] = k; h = 1 } else { print $n[f]; exit } }' /proc/net/snmp; }
ctl_burst() {
    /sbin/ip -n C neigh replace 10.0.9.1 lladdr "$(/sbin/ip netns exec A cat /sys/class/net/icm0/address)" nud permanent dev icm2
    snap ctl A:icm0
    ctl_in=$(snmp_icmp A InEchos); ctl_rep=$(snmp_icmp A OutEchoReps); ctl_err=$(snmp_icmp A OutErrors)
    ns_exec C /usr/bin/ping -q -c 48 -i 0.02 -W 1 -s 60000 10.0.9.1 > /tmp/ctl.c 2>&1 &
    ctl_cp=$!
}
ctl_b_pings() {
    wait $ctl_cp
    ctl_in=$(( $(snmp_icmp A InEchos) - ctl_in )); ctl_rep=$(( $(snmp_icmp A OutEchoReps) - ctl_rep ))
    # dropped at the queue's bound; a later teardown by the send watchdog (about 10 s into the
    # stall: on a loaded host these reads can reach it) may drop what waits, as it should
    ctl_drop=$(( $(delta ctl A:icm0 cm_tx_drop_queue_full) + $(delta ctl A:icm0 rc_tx_drop_conn_queue) ))
    ctl_ring=$(sed -n 's/^conn_limit=\([0-9]*\) .*/\1/p' $(cm_file icm0 rc_send))
    # C's connection as debugfs showed it 4 s into the stall (/tmp/conn.forever), before the watchdog
    ctl_infl=$(sed -n '1s/.* tx_inflight=\([0-9]*\).*/\1/p' /tmp/conn.$1)
    ns_ping_all B 10.0.9.1 5 > /tmp/ctl.b 2>&1 &
    ctl_bp=$!
}
ctl_held() {
    grep -q '^48 packets transmitted, 0 received' /tmp/ctl.c && [ "$ctl_rep" -ge 48 ] && [ "$ctl_drop" -eq 0 ] &&
        [ -n "$ctl_ring" ] && [ "${ctl_infl:-0}" -eq "$ctl_ring" ]
}
ctl_checks() {
    wait $ctl_bp; ctl_brc=$?
    ctl_err=$(( $(snmp_icmp A OutErrors) - ctl_err ))
    diag "forever: C -> A: $(grep transmitted /tmp/ctl.c); A: Icmp InEchos +$ctl_in OutEchoReps +$ctl_rep, driver drops +$ctl_drop, C's connection tx_inflight=$ctl_infl of conn_limit=$ctl_ring"
    check "forever: C's 48 60000-byte pings reached A (Icmp InEchos +$ctl_in >= 48)" test "$ctl_in" -ge 48
    check "forever: A's 48 replies to C wait on its stalled connection, >= 48 - $ctl_ring on its queue (none answered or dropped, OutEchoReps +$ctl_rep, ring full: tx_inflight=$ctl_infl)" ctl_held
    check "forever: all 5 pings B -> A answered meanwhile" test $ctl_brc = 0 || diag "$(cat /tmp/ctl.b)"
    check "forever: A's Icmp OutErrors unmoved (+$ctl_err)" test "$ctl_err" -eq 0
}
# stalled CASE FAULT LIFT: C's end stalled by FAULT (a command for softib2's fault file, QPN
# substituted for @), A floods C and pings B 60 times: every ping to B answered; LIFT ends it
stalled() {
    check "$1: A -> C connection established" c_conn
    qc=$(a_to_c | sed -n '1s/.* rqpn=\([^ ]*\).*/\1/p')	# C's end of it
    f=$(echo "$2" | sed "s/@/$qc/")
    snap $1 A:icm0
    # The streams first: connected and running before C stalls, so that they span the stall
    # (a stream that connects only once a stopped queue wakes would measure after it)
    udp_mark B
    ns_exec A iperf3 -u -b 5M -l 1400 -t 14 -i 1 -f m -p 5201 --get-server-output -c 10.0.9.2 > /tmp/udp.$1 2>&1 &
    up=$!
    ns_exec A iperf3 -t 14 -i 1 -f m -p 5202 --get-server-output -c 10.0.9.2 > /tmp/tcp.$1 2>&1 &
    tp=$!
    sleep 2
    check "$1: '$f' on softib2" sh -c "echo '$f' > $F2"
    ns_exec A /usr/bin/ping -i 0.02 -W 1 -s 60000 -w 20 10.0.9.3 > /tmp/flood.$1 2>&1 &
    fp=$!
    sleep 1
    ns_exec A /usr/bin/ping -c 60 -i 0.2 -W 5 10.0.9.2 > /tmp/b.$1 2>&1 &
    bp=$!
    # forever: C pings A with 48 60000-byte pings, 20 ms apart; A's replies (its ICMP control
    # socket's) wait behind the stalled connection's bound, far more than that socket's send
    # buffer (2 x 64 KiB) could hold, and meanwhile B's pings to A must all be answered
    [ $1 = forever ] && ctl_burst
    sleep 4
    a_to_c | grep " rqpn=$qc " > /tmp/conn.$1	# C's line only: two hosts may use one QPN
    [ $1 = forever ] && ctl_b_pings $1
    ns_exec A /usr/bin/ping -b -c 10 -i 0.2 -W 2 10.0.9.255 > /tmp/ud.$1 2>&1
    wait $bp; wait $up; wait $tp
    [ $1 = forever ] && ctl_checks
    # gone: no connection is left to show by then (its sends end in RETRY_EXC, counted
    # cm_retry_exceeded); the other two stay until the watchdog's 10 s
    case $1 in forever|trickle)
        check_output "$1: debugfs shows A's connection to C stalled (tx_inflight= > 0, stalled= >= 1000 ms)" \
            ' tx_inflight=[1-9][0-9]* stalled=[1-9][0-9]{3,}( |$)' cat /tmp/conn.$1 ;;
    esac
    check_udp_loss "$1: UDP A -> B (5 Mbit/s of 1400 B, 14 s) lost nothing beyond B's counted socket drops" \
        /tmp/udp.$1 "$(udp_counted B)" - || diag "$(cat /tmp/udp.$1)"
    # a stopped queue delivers nothing for seconds; a guest its host starves has dipped to 38 %
    o=$(udp_each_second /tmp/udp.$1 5000000 1400 13 10); r=$?
    check "$1: UDP A -> B delivered a tenth of what 5 Mbit/s offers in every 1 s interval ($o)" test $r = 0 ||
        diag "$(cat /tmp/udp.$1)"
    o=$(tcp_each_second /tmp/tcp.$1 13); r=$?
    check "$1: TCP A -> B delivered in every 1 s interval ($o)" test $r = 0 || diag "$(cat /tmp/tcp.$1)"
    check "$1: no NETDEV WATCHDOG" no_netdev_watchdog
    diag "$1: B: $(grep transmitted /tmp/b.$1); worst rtt $(rtt_max /tmp/b.$1) ms; C: $(grep transmitted /tmp/flood.$1)"
    check "$1: every one of 60 pings to B answered while C stalls" grep -q '^60 packets transmitted, 60 received,' /tmp/b.$1
    r=$(rtt_max /tmp/b.$1)
    check "$1: no ping to B took 2 s or longer (worst ${r:-none} ms)" test "${r%.*}" -lt 2000 2>/dev/null
    nud=$(sed -n 's/.* from 10\.0\.9\.2: icmp_seq=\([0-9]*\) .*/\1/p' /tmp/ud.$1 | sort -u | wc -l)
    check "$1: B answered each of 10 broadcast (UD) pings meanwhile ($nud)" test "$nud" -eq 10
    kill $fp 2>/dev/null; wait $fp 2>/dev/null
    case $1 in forever|trickle)
        check_delta "$1: the send watchdog tore A's connection to C down" $1 A:icm0 cm_watchdog_teardowns -ge 1 ;;
    esac
    cm_show icm0; cm_ctrs A icm0
    check "$1: lift the fault ($3)" sh -c "echo '$3' > $F2"
}
stalled forever 'rnr @ forever' clear
stalled trickle 'rnr @ trickle 3000' clear
stalled gone 'port_down 1' 'port_up 1'
check "C's carrier back" wait_carrier icm2 C 60
check "A reaches C again" wait_for 60 ns_reach A 10.0.9.3 1

# ---- As many stalled peers as the RC bound has rings. D, E, F, G (icm3..icm6) answer every
# SEND of A's connection with an RNR NAK (softib `rnr QPN forever` on their ends). A sends 32
# 60000-byte pings at once to each of D, E and F (their whole send rings: 96 of the bound's
# 128, its shared part), then one to G (from idle it may take a reserve slot: 97), and,
# once debugfs shows G's connection stalled (from 1 s),
# 31 more to G, whose oldest outstanding send is older than cm::kReserveHolMs: the
# reserve (the bound's last ring) is refused to it (cm_tx_reserve_held) and its packets wait
# on its own queue. Meanwhile the netdev queue must run on: A's ARP for B resolves, 10 RC
# pings and 10 broadcast (UD) pings to B are all answered, the netdev queue never times out
# (tx_timeouts) and no NETDEV WATCHDOG is logged. (The old rule stopped the queue at the full
# bound until two of the four connections' watchdogs had fired, 10 s after the stall.) The
# reserve was kept: inflight stays below the bound (97 of 128: D, E, F's 96 and G's one).
# Then D's fault is lifted before the send watchdog's 10 s: D's 32 sends complete, and G's 31
# packets waiting on its own queue take the freed shared slots (G's connection, still
# established, at 32 in flight; nothing left waiting in rc_send).
bp_ns() { echo "${1%%:*}"; }
bp_if() { echo "icm${1#*:}"; }
bp_ip() { echo "10.0.9.$((${1#*:} + 1))"; }
bp_fault() { echo "/sys/kernel/debug/softib/softib${1#*:}/fault"; }
BP="D:3 E:4 F:5 G:6"
for p in $BP; do eval "addr_$(bp_ns $p)=\$(cat /sys/class/net/$(bp_if $p)/address)"; done
bp_addr() { eval "echo \$addr_$(bp_ns $1)"; }
bp_setup() {
    for p in $BP; do
        echo connected > "/sys/class/net/$(bp_if $p)/mode" && ns_create "$(bp_ns $p)" &&
            ns_move "$(bp_if $p)" "$(bp_ns $p)" && ns_addr "$(bp_ns $p)" "$(bp_if $p)" "$(bp_ip $p)/24" &&
            /sbin/ip -n A neigh replace "$(bp_ip $p)" lladdr "$(bp_addr $p)" nud permanent dev icm0 || return 1
    done
}
check "D, E, F, G (icm3..icm6): connected mode, own namespaces, static neighbours on A" bp_setup
bp_up() { for p in $BP; do has_carrier "$(bp_if $p)" "$(bp_ns $p)" || return 1; done; }
check "carrier on D, E, F, G" wait_for 60 bp_up
# bp_conn P: A's established connection to P (its debugfs line)
bp_conn() {
    _g=$(bp_addr "$1" | cut -d: -f13-20)
    grep -E "peer=[0-9a-f:]*$_g .* state=established " $(cm_file icm0 connections)
}
bp_connect() {
    wait_for 60 sh -c "/sbin/ip netns exec A /usr/bin/ping -c 1 -W 2 -s 60000 $(bp_ip $1)" && wait_for 10 bp_conn "$1"
}
# bp_stall P: P's end of A's connection answers every SEND with an RNR NAK
bp_stall() {
    _q=$(bp_conn "$1" | sed -n '1s/.* rqpn=\([^ ]*\).*/\1/p')
    [ -n "$_q" ] && echo "rnr $_q forever" > "$(bp_fault $1)"
}
for p in $BP; do
    check "A -> $(bp_ns $p): a connection established" bp_connect $p
done
bp_stall_all() { for p in $BP; do bp_stall $p || return 1; done; }
check "D, E, F, G: their ends of A's connections answer RNR NAK forever" bp_stall_all
snap bound A:icm0
big() { ns_exec A /usr/bin/ping -q -W 1 -s 60000 "$@" >/dev/null 2>&1; }
rc_send=$(cm_file icm0 rc_send)
for ip in 10.0.9.4 10.0.9.5 10.0.9.6; do big -l 32 -c 32 $ip & done
# D, E and F's 96 sends (their whole rings) fill the bound's shared part first; then G's one
# send, posted with nothing outstanding (which may take the reserve), makes 97 in flight.
bp_inflight() { sed -n 's/^inflight=\([0-9]*\) .*/\1/p' $rc_send; }
bp_shared_full() { [ "$(bp_inflight)" -ge 96 ]; }
wait_for 10 bp_shared_full || diag "$(cat $rc_send)"
big -c 1 10.0.9.7 &	# G: one send outstanding, its clock runs
# G's burst only once its clock shows no progress (debugfs stalled= is shown from 1000 ms):
# it then meets the reserve rule with a head of line over cm::kReserveHolMs old
# (docs/connected.md §3 "The reserve"), and waits on its own queue (rc_send conn_waiting)
bp_ready() {
    bp_conn G:6 | grep -Eq ' tx_inflight=[1-9][0-9]* stalled=[1-9][0-9]{3,}( |$)' &&
        [ "$(bp_inflight)" -ge 97 ]
}
check "D, E, F hold the bound's shared part and G's clock shows no progress" wait_for 10 bp_ready ||
    diag "$(cat $rc_send; bp_conn G:6)"
big -l 31 -c 31 10.0.9.7 &	# G: refused the reserve
bp_refused() { grep -Eq '(^| )conn_waiting=[1-9]' $rc_send; }
wait_for 5 bp_refused || diag "$(cat $rc_send)"
cat $rc_send > /tmp/rcsend.bound
g_refused=$(bp_conn G:6 | sed -n 's/.* tx_inflight=\([0-9]*\).*/\1/p')
# A refused peer's packets go out once a shared slot frees: D recovers (its fault lifted
# right after G's refusal, seconds before the send watchdog's 10 s), its 32 sends complete,
# and G's waiting packets (as many as ping's socket lets it queue) take the shared slots D
# left. G is still stalled, so they are posted, not answered: its connection, still
# established, shows more in flight than while it was refused, and nothing waits in rc_send.
# E, F and G then hold the shared part again (96), so what follows still needs the reserve.
check "lift D's fault (before the send watchdog)" sh -c "echo clear > $(bp_fault D:3)"
bp_g_sent() {
    _n=$(bp_conn G:6 | sed -n 's/.* tx_inflight=\([0-9]*\).*/\1/p')
    [ -n "$g_refused" ] && [ -n "$_n" ] && [ "$_n" -gt "$g_refused" ] && grep -Eq '(^| )conn_waiting=0( |$)' $rc_send
}
check "G's waiting packets went out on the freed shared slots (G tx_inflight above its $g_refused while refused, nothing waiting)" wait_for 5 bp_g_sent ||
    diag "$(cat $rc_send; bp_conn G:6)"
bp_no_waiters() { grep -Eq '(^| )backlog=0 conn_waiting=0( |$)' $rc_send; }
ns_exec A /usr/bin/ping -b -c 10 -i 0.2 -W 2 10.0.9.255 > /tmp/ud.bound 2>&1 &
bcp=$!
ns_exec A /sbin/ip neigh del 10.0.9.2 dev icm0
ns_exec A /usr/bin/ping -c 10 -i 0.2 -W 2 10.0.9.2 > /tmp/b.bound 2>&1
ns_exec A /sbin/ip neigh show 10.0.9.2 dev icm0 > /tmp/neigh.bound
wait $bcp
cat $rc_send > /tmp/rcsend.after
diag "rc_send with G refused: $(tr '\n' ' ' < /tmp/rcsend.bound); after D recovered and the pings to B: $(tr '\n' ' ' < /tmp/rcsend.after)"
# the stalled ones hold the bound's shared part but not its reserve: limit - conn_limit <=
# inflight < limit (97 expected), read while G waits refused
bp_held() {
    awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        END { exit !(v["limit"] > 0 && v["inflight"] >= v["limit"] - v["conn_limit"] &&
                     v["inflight"] < v["limit"]) }' /tmp/rcsend.bound
}
check "the stalled peers hold the RC bound's shared part, the reserve kept (limit - conn_limit <= inflight < limit)" bp_held
check_delta "G was refused the reserve: its packets waited on its own queue" bound A:icm0 cm_tx_reserve_held -ge 1
check "A's ARP for B resolved meanwhile (neighbour with B's address)" grep -q "lladdr $addr_b" /tmp/neigh.bound ||
    diag "$(cat /tmp/neigh.bound)"
check "all 10 pings to B answered meanwhile (RC, the reserve)" grep -q '^10 packets transmitted, 10 received,' /tmp/b.bound ||
    diag "$(cat /tmp/b.bound)"
nud=$(sed -n 's/.* from 10\.0\.9\.2: icmp_seq=\([0-9]*\) .*/\1/p' /tmp/ud.bound | sort -u | wc -l)
check "B answered each of 10 broadcast (UD) pings meanwhile ($nud)" test "$nud" -eq 10 || diag "$(cat /tmp/ud.bound)"
check_delta "the netdev queue never timed out with four peers stalled (tx_timeouts)" bound A:icm0 tx_timeouts -eq 0
check_delta "the UD ring never filled (tx_queue_stopped)" bound A:icm0 tx_queue_stopped -eq 0
check "no NETDEV WATCHDOG with four peers stalled" no_netdev_watchdog
check "G's queue drained: nothing waits for a bound (rc_send backlog=0 conn_waiting=0)" wait_for 5 bp_no_waiters ||
    diag "$(cat $rc_send)"
check "the send watchdog tore down the three still stalled connections (E, F, G)" wait_for 30 delta_ge bound A:icm0 cm_watchdog_teardowns 3
cm_ctrs A icm0
bp_lift() { for p in $BP; do echo clear > "$(bp_fault $p)" || return 1; done; }
check "lift the four faults" bp_lift
check "nothing left in flight on A (rc_send inflight=0)" wait_for 30 rc_drained A icm0
check "no NETDEV WATCHDOG" no_netdev_watchdog
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
