# SPDX-License-Identifier: GPL-2.0
# Helpers for e2e scenarios (busybox sh, inside the test VM). Source it first:
#     . /e2e/lib.sh
# The scenario's stdout is TAP: every helper that reports prints a TAP line; diagnostics go
# out as "# ..." comment lines. See tests/e2e/README.md.

# ---- real tools, not busybox applets
# busybox sh runs its own applets (ip, ping, tc, ...) before it searches $PATH, and Debian's
# busybox `ip` has no netns support. Shell functions win over applets, so these make the plain
# names mean iproute2/iputils inside scenarios. (A child `sh -c '...'` does not inherit them:
# there, write /sbin/ip, /usr/bin/ping.)
ip()    { /usr/sbin/ip "$@"; }
tc()    { /usr/sbin/tc "$@"; }
ping()  { /usr/bin/ping "$@"; }
ping6() { /usr/bin/ping -6 "$@"; }

# ---- TAP
_tap_n=0
_tap_planned=0
_tap_failed=0

# plan N: print the plan up front (or call done_testing at the end instead)
plan() { _tap_planned=$1; echo "1..$1"; }
# done_testing: print the plan from the number of tests run (use when N is not known upfront)
done_testing() { [ "$_tap_planned" = 0 ] && echo "1..$_tap_n"; }
ok()     { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $*"; }
# skip "description" "reason"
skip()   { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP ${2:-}"; }
# diag text...: TAP comment
diag()   { echo "$*" | sed 's/^/# /'; }
# skip_all "reason": the whole scenario does not apply; exits
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# bail "reason": stop now, the run fails
bail()   { echo "Bail out! $*"; exit 1; }
# exit status for the end of a scenario: `exit $(tap_status)` (non-zero fails the scenario
# even if the TAP lines were fine; the host judges the TAP in any case)
tap_status() { [ "$_tap_failed" = 0 ] && echo 0 || echo 1; }

# check "description" cmd args...: ok if the command succeeds; its output is shown as
# diagnostics when it fails
check() {
    _d=$1; shift
    _out=$("$@" 2>&1); _rc=$?
    if [ $_rc = 0 ]; then ok "$_d"; return 0; fi
    not_ok "$_d"
    diag "command: $* (exit $_rc)"
    [ -n "$_out" ] && diag "$_out"
    return 1
}
# check_todo "reason" "description" cmd args...: as check, but a failure is a known open
# defect: `not ok N - description # TODO reason` (TAP: reported and counted as todo by
# vm-test, not a scenario failure) with the same diagnostics. Only for a defect recorded in
# the docs with its evidence; the check keeps running, so its next failure carries them too.
check_todo() {
    _r=$1 _d=$2; shift 2
    _out=$("$@" 2>&1); _rc=$?
    if [ $_rc = 0 ]; then ok "$_d"; return 0; fi
    _tap_n=$((_tap_n + 1)); echo "not ok $_tap_n - $_d # TODO $_r"
    diag "command: $* (exit $_rc)"
    [ -n "$_out" ] && diag "$_out"
    return 1
}
# check_fail "description" ERE cmd args...: ok if the command FAILS (non-zero exit) AND its
# output matches the extended regex ERE, the expected error: any failure is not enough (exit
# 127, a missing file or the wrong namespace fail too). Give each use a positive control, the
# same command succeeding where it should.
check_fail() {
    _d=$1 _p=$2; shift 2
    _out=$("$@" 2>&1); _rc=$?
    if [ $_rc = 0 ]; then
        not_ok "$_d"; diag "command unexpectedly succeeded: $*"; [ -n "$_out" ] && diag "$_out"
        return 1
    fi
    if printf '%s\n' "$_out" | grep -Eq -- "$_p"; then ok "$_d"; return 0; fi
    not_ok "$_d"; diag "command: $* (exit $_rc)"; diag "expected the error /$_p/, got:"; diag "$_out"
    return 1
}
# check_rc "description" N cmd args...: ok if the command exits with status N exactly. For
# predicates that must come out false: 1 is grep's "no match", test's and has_carrier's
# "false", ping's "no reply"; 2 (grep: no such file), 126/127 (no such command) and 255
# (ip netns exec: no such namespace) are errors, not the negative answer.
check_rc() {
    _d=$1 _w=$2; shift 2
    _out=$("$@" 2>&1); _rc=$?
    if [ "$_rc" = "$_w" ]; then ok "$_d"; return 0; fi
    not_ok "$_d"; diag "command: $* (exit $_rc, expected $_w)"; [ -n "$_out" ] && diag "$_out"
    return 1
}
# check_output "description" PATTERN cmd args...: ok if the command succeeds and its
# output matches the extended regex PATTERN
check_output() {
    _d=$1; _p=$2; shift 2
    if _out=$("$@" 2>&1) && printf '%s\n' "$_out" | grep -Eq -- "$_p"; then ok "$_d"; return 0; fi
    not_ok "$_d"; diag "command: $*"; diag "expected /$_p/ in:"; diag "$_out"
    return 1
}
# run cmd...: run a command, echo it and its output as diagnostics, return its status
run() {
    diag "\$ $*"
    _out=$("$@" 2>&1); _rc=$?
    [ -n "$_out" ] && diag "$_out"
    return $_rc
}

# ---- the kernel under test
# on_debug: the scenario runs on the debug kernel (E2E_KERNEL=debug: KASAN, lockdep, kmemleak,
# about ten times slower under TCG). There its job is to drive every path under those checkers
# once, not to repeat it: the full-size run is the stock kernel's. A scenario may use fewer
# rounds or pings there, never fewer checks or other paths.
on_debug() { [ "${E2E_KERNEL:-}" = debug ]; }
# by_kernel STOCK DEBUG: prints STOCK, or DEBUG on the debug kernel (a count, a duration)
by_kernel() { if on_debug; then echo "$2"; else echo "$1"; fi; }

# ---- waiting
# wait_for SECONDS cmd args...: poll every 0.2 s until cmd succeeds; 1 on timeout
wait_for() {
    _limit=$(($1 * 5)); shift
    _i=0
    while ! "$@" >/dev/null 2>&1; do
        _i=$((_i + 1))
        [ $_i -ge $_limit ] && return 1
        sleep 0.2
    done
    return 0
}
# has_carrier DEV [NS]: the link has carrier (LOWER_UP). Read with busybox's static `ip` in
# NS's network namespace (ns_net): a poll loop of iproute2's `ip -n` (dynamically linked, and
# a mount namespace with a fresh /sys per call) cost 3-6 s a call on the debug kernel, most
# of the time between a link's up and its carrier check; the flag is the same netlink one.
has_carrier() {
    if [ -n "${2:-}" ]; then _l=$(ns_net "$2" /bin/busybox ip -o link show dev "$1" 2>/dev/null)
    else _l=$(/bin/busybox ip -o link show dev "$1" 2>/dev/null); fi
    case $_l in *LOWER_UP*) return 0 ;; esac
    return 1
}
# wait_carrier DEV [NS] [SECONDS=30]
wait_carrier() { wait_for "${3:-30}" has_carrier "$1" "${2:-}"; }
# wait_netdev DEV [NS] [SECONDS=30]: the netdev exists
wait_netdev() {
    if [ -n "${2:-}" ]; then wait_for "${3:-30}" ip -n "$2" link show dev "$1"
    else wait_for "${3:-30}" ip link show dev "$1"; fi
}

# ---- network namespaces (iproute2; shared RDMA netns mode)
# ns_create NS...: create namespaces with lo up
ns_create() { for _ns in "$@"; do ip netns add "$_ns" && ns_net "$_ns" /bin/busybox ip link set lo up || return 1; done; }
# ns_move DEV NS: move a netdev into a namespace (ipoib netdevs come back to init_net when
# the namespace is deleted: netns_refund)
ns_move() { ip link set "$1" netns "$2"; }
# ns_exec NS cmd...: run a command in a namespace (execvp: real tools, not applets)
ns_exec() { _ns=$1; shift; ip netns exec "$_ns" "$@"; }
# ns_net NS /abs/path/cmd...: run a command in NS's network namespace only (setns, busybox
# nsenter -n), for what needs no sysfs view of the namespace: ping, ethtool, ss, /proc/net.
# `ip netns exec` also unshares the mount namespace and remounts /sys, which costs seconds a
# call on the debug kernel. Give the command by its path (busybox would prefer its own
# applet of that name). No such namespace: 255, as `ip netns exec`.
ns_net() {
    [ -e "/run/netns/$1" ] || { echo "ns_net: no namespace $1" >&2; return 255; }
    _nn=$1; shift; /bin/busybox nsenter -n"/run/netns/$_nn" "$@"
}
# ns_ip NS args...: ip -n NS args...
ns_ip() { _ns=$1; shift; ip -n "$_ns" "$@"; }
# ns_addr NS DEV ADDR/PREFIX: add the address and bring the device up (one `ip` process for
# both: each start of iproute2's `ip` costs seconds on the debug kernel; -batch stops at and
# fails on the first command that fails)
ns_addr() { printf 'address add %s dev %s\nlink set dev %s up\n' "$3" "$2" "$2" | ip -n "$1" -batch -; }
# ns_pair IF_A IF_B: namespaces A and B, IF_A in A as 10.0.0.1/24 + fd00::1/64, IF_B in B as
# 10.0.0.2/24 + fd00::2/64 (no DAD), both up: the two-host layout most scenarios start from
ns_pair() {
    ns_create A B && ns_move "$1" A && ns_move "$2" B &&
        ns_addr A "$1" 10.0.0.1/24 && ns_addr B "$2" 10.0.0.2/24 &&
        ip -n A addr add fd00::1/64 dev "$1" nodad && ip -n B addr add fd00::2/64 dev "$2" nodad
}
# ns_trio IF_A IF_B IF_C: namespaces A, B and C on one subnet, IF_A as 10.0.0.1/24, IF_B as
# 10.0.0.2/24, IF_C as 10.0.0.3/24, all up (the three-host layout: ours, ours, in-tree)
ns_trio() {
    ns_create A B C && ns_move "$1" A && ns_move "$2" B && ns_move "$3" C &&
        ns_addr A "$1" 10.0.0.1/24 && ns_addr B "$2" 10.0.0.2/24 && ns_addr C "$3" 10.0.0.3/24
}
# ns_reach NS ADDR [COUNT=3] [extra ping args]: ADDR is reachable from NS: passes on any one
# reply of COUNT (iputils exits 0 then), so it proves reachability, never that nothing was lost
ns_reach() {
    _ns=$1 _a=$2 _c=${3:-3}
    if [ $# -ge 3 ]; then shift 3; else shift $#; fi
    ns_net "$_ns" /usr/bin/ping -c "$_c" -i 0.2 -W 2 "$@" "$_a"
}
# ns_ping_all NS ADDR COUNT [extra ping args]: COUNT pings from NS, every one answered: passes
# only on "COUNT packets transmitted, COUNT received" (the exit status passes on one reply, and
# -w would keep sending until COUNT replies came, so neither counts a loss). -W 5: the wait
# for a slow reply (a TCG guest), not a retry; a reply later than that counts as lost.
ns_ping_all() {
    _ns=$1 _a=$2 _c=$3; shift 3
    _pa_out=$(ns_net "$_ns" /usr/bin/ping -c "$_c" -i 0.2 -W 5 "$@" "$_a" 2>&1)
    printf '%s\n' "$_pa_out" | tail -n 2
    printf '%s\n' "$_pa_out" | grep -q "^$_c packets transmitted, $_c received,"
}
# ns_ping_errs NS ADDR COUNT ERRORS [extra ping args]: COUNT pings from NS, exactly ERRORS of
# them answered by an ICMP error (e.g. frag-needed when a PMTU is learned) and every other one
# by its reply: "COUNT packets transmitted, COUNT-ERRORS received, +ERRORS errors"
ns_ping_errs() {
    _ns=$1 _a=$2 _c=$3 _e=$4; shift 4
    _pa_out=$(ns_net "$_ns" /usr/bin/ping -c "$_c" -i 0.2 -W 5 "$@" "$_a" 2>&1)
    printf '%s\n' "$_pa_out" | grep -E '^From |transmitted|rtt' | tail -n 4
    printf '%s\n' "$_pa_out" | grep -q "^$_c packets transmitted, $((_c - _e)) received, +$_e errors,"
}
# ping_seqs_all FILE COUNT: the output of a `ping -c COUNT -w D` (without -q) in FILE holds
# a reply to each of echoes 1..COUNT. -w keeps sending until COUNT replies came, so its exit
# status and "COUNT received" pass with echoes lost; a lost echo leaves its icmp_seq out here,
# while a late reply (ping sent more meanwhile) still counts and keeps -w's wall-time bound.
ping_seqs_all() {
    [ "$(sed -n 's/^[0-9]* bytes from .* icmp_seq=\([0-9]*\) .*/\1/p' "$1" |
        awk -v n="$2" '$1 >= 1 && $1 <= n && !s[$1]++' | wc -l)" -eq "$2" ]
}
# file_lacks FILE MIN PATTERN [SELECT]: FILE is readable, holds at least MIN lines (of those
# matching SELECT, if given; both grep -E) and none of those lines matches PATTERN. A negative
# grep alone passes on a missing or empty file; this one fails there.
file_lacks() {
    _fl_f=$1 _fl_m=$2 _fl_p=$3 _fl_s=${4:-.}
    [ -r "$_fl_f" ] || { echo "$_fl_f: not readable"; return 1; }
    _fl_n=$(grep -cE -- "$_fl_s" "$_fl_f")
    _fl_bad=$(grep -E -- "$_fl_s" "$_fl_f" | grep -E -- "$_fl_p")
    [ "$_fl_n" -ge "$_fl_m" ] || { echo "$_fl_f: $_fl_n lines matching /$_fl_s/, want >= $_fl_m"; return 1; }
    [ -z "$_fl_bad" ] || { echo "$_fl_f: lines matching /$_fl_p/:"; printf '%s\n' "$_fl_bad" | head -n 3; return 1; }
}
# ns_delete_all: remove every namespace (the harness also does this after the scenario)
ns_delete_all() { ip -all netns delete; }
# cm_oneway NET: ib0 in connected mode (MTU 65520) in namespace A as NET.1, ib1 left in
# datagram mode in B as NET.2 (e.g. 10.0.3): only A opens RC connections, so every RC QP
# on softib1 is a passive (receive) one; waits for both carriers
cm_oneway() {
    wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1' &&
        echo connected > /sys/class/net/ib0/mode && ns_create A B &&
        ns_move ib0 A && ns_move ib1 B && ns_addr A ib0 "$1.1/24" && ns_addr B ib1 "$1.2/24" &&
        ip -n A link set ib0 mtu 65520 && wait_carrier ib0 A 60 && wait_carrier ib1 B 60
}
# ping_within SECONDS NS ADDR [ping args]: one ping from NS gets a reply within SECONDS of
# wall time (tries every 0.5 s; wait_for counts tries, and a lost ping takes -W 1 each)
ping_within() {
    _end=$(( $(cut -d. -f1 /proc/uptime) + $1 )); _ns=$2 _a=$3; shift 3
    while [ "$(cut -d. -f1 /proc/uptime)" -lt "$_end" ]; do
        ns_net "$_ns" /usr/bin/ping -c 1 -W 1 "$@" "$_a" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    return 1
}
# big_ping_recovers ADDR: a 60000-byte ping from A gets a reply within 15 tries
big_ping_recovers() { for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
    ns_net A /usr/bin/ping -c 1 -W 2 -s 60000 "$1" >/dev/null && return 0; done; return 1; }

# ---- modules and devices
module_loaded() { grep -q "^$1 " /proc/modules; }
# ib_devices: names of registered ib_devices
ib_devices() { ls /sys/class/infiniband 2>/dev/null; }
# netdevs_of_type TYPE: netdevs whose /sys/class/net/X/type is TYPE (32 = ARPHRD_INFINIBAND)
netdevs_of_type() { for _d in /sys/class/net/*; do [ "$(cat "$_d/type" 2>/dev/null)" = "$1" ] && basename "$_d"; done; return 0; }
ipoib_netdevs() { netdevs_of_type 32; }

# ---- counters
# ctr NS DEV NAME: one `ethtool -S` counter of netdev DEV in namespace NS ("-": init_net)
ctr() {
    if [ "$1" = - ]; then ethtool -S "$2"; else ns_net "$1" /usr/sbin/ethtool -S "$2"; fi |
        awk -v k="$3:" '$1 == k { print $2; f = 1 } END { exit !f }'
}
# ctr_ge NS DEV NAME MIN: that counter is >= MIN
ctr_ge() { _v=$(ctr "$1" "$2" "$3") && [ "$_v" -ge "$4" ]; }
# hwc IBDEV NAME [PORT=1]: one softib port counter (hw_counters; softib/README.md)
hwc() { cat "/sys/class/infiniband/$1/ports/${3:-1}/hw_counters/$2"; }
# snap TAG SRC...: remember counters for delta TAG. Each SRC is NS:DEV (ethtool -S, NS "-"
# for init_net) or ib:IBDEV (softib port 1 hw_counters). Later snaps of a TAG replace it.
snap() {
    _t=$1; shift
    : > "/tmp/snap.$_t"
    for _s in "$@"; do _counters "$_s" | sed "s|^|$_s |" >> "/tmp/snap.$_t" || return 1; done
}
_counters() {
    case $1 in
        # one grep for all of a port's counters (some 40): two processes per counter add up
        # to a slow snap on the debug kernel under load
        ib:*) grep -H '' "/sys/class/infiniband/${1#ib:}/ports/1/hw_counters/"* | sed 's|.*/||; s/:/ /' ;;
        *:*)  _n=${1%%:*} _v=${1#*:}
              if [ "$_n" = - ]; then ethtool -S "$_v"; else ns_net "$_n" /usr/sbin/ethtool -S "$_v"; fi |
                  awk -F': *' 'NF == 2 { gsub(/^ +/, "", $1); print $1, $2 }' ;;
        *) echo "snap: bad source $1" >&2; return 1 ;;
    esac
}
# _counter SRC NAME: one counter of SRC now
_counter() {
    case $1 in
        ib:*) hwc "${1#ib:}" "$2" 2>/dev/null ;;
        *:*)  ctr "${1%%:*}" "${1#*:}" "$2" ;;
        *) return 1 ;;
    esac
}
# delta TAG SRC NAME: the counter's increase since `snap TAG` (fails if it was not snapped);
# reads only that counter (cheap enough to poll with wait_for)
delta() {
    _was=$(awk -v s="$2" -v k="$3" '$1 == s && $2 == k { print $3; f = 1 } END { exit !f }' "/tmp/snap.$1") || return 1
    _now=$(_counter "$2" "$3") || return 1
    echo $((_now - _was))
}
# delta_ge TAG SRC NAME MIN / delta_eq TAG SRC NAME N / delta_lt TAG SRC NAME MAX
delta_ge() { _x=$(delta "$1" "$2" "$3") && [ "$_x" -ge "$4" ]; }
delta_eq() { _x=$(delta "$1" "$2" "$3") && [ "$_x" -eq "$4" ]; }
delta_lt() { _x=$(delta "$1" "$2" "$3") && [ "$_x" -lt "$4" ]; }
# check_delta "description" TAG SRC NAME OP N: ok if delta OP N (OP: -ge -eq -lt -gt -le), the
# delta shown either way
check_delta() {
    _d=$1; _x=$(delta "$2" "$3" "$4"); _rc=$?
    if [ $_rc = 0 ] && [ "$_x" "$5" "$6" ]; then ok "$_d ($4 +$_x)"; return 0; fi
    not_ok "$_d"; diag "$3 $4: delta '${_x}' since snap $2, expected $5 $6"
    return 1
}
# check_deltas_eq "desc" TAG SRC1 NAME1 SRC2 NAME2: both counters moved by the same amount
# since snap TAG (what one end sent, the other received: a loss shows as a difference)
check_deltas_eq() {
    _d=$1; _x=$(delta "$2" "$3" "$4") && _y=$(delta "$2" "$5" "$6")
    if [ -n "${_x:-}" ] && [ -n "${_y:-}" ] && [ "$_x" -eq "$_y" ]; then ok "$_d ($4 +$_x = $6 +$_y)"; return 0; fi
    not_ok "$_d"; diag "$3 $4 +${_x:-?}, $5 $6 +${_y:-?} since snap $2, expected equal"
    return 1
}

# ---- connected mode
# rc_drained NS IF: no RC send of IF in flight (debugfs rc_send inflight=0, no underflow): once
# it holds, no send is left for the send watchdog to time out, so a zero-check on teardowns is
# one that could have moved (use under wait_for)
rc_drained() { grep -qx 'inflight=0 limit=[0-9]* underflows=0' "/sys/kernel/debug/ib_ipoib_cm/$2/rc_send"; }
# cm_ours_pair NET: ours on both softib hosts (icm0, icm1), both in connected mode, icm0 in
# namespace A as NET.1, icm1 in B as NET.2, carrier on both (60 s), and a static neighbour for
# B on A (only A's unicast then opens connections). The pieces are checked one by one.
cm_ours_pair() {
    check "icm0 and icm1 exist (both ours)" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/icm1'
    check "both -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode && echo connected > /sys/class/net/icm1/mode'
    _cm_addr_b=$(cat /sys/class/net/icm1/address)
    ns_create A B
    ns_move icm0 A && ns_move icm1 B
    ns_addr A icm0 "$1.1/24" && ns_addr B icm1 "$1.2/24"
    check "carrier on both" wait_for 60 _cm_both_up
    check "static neighbour for B on A" ns_ip A neigh replace "$1.2" lladdr "$_cm_addr_b" nud permanent dev icm0
}
_cm_both_up() { has_carrier icm0 A && has_carrier icm1 B; }
# cm_intree_pair NET: ours on softib0 (icm0) in namespace A as NET.1, the in-tree ib_ipoib on
# softib1 (ib1) in B as NET.2 (its ib0 on softib0 down), both in connected mode with MTU
# 65520, carrier on both, static IPv4 neighbours both ways (no ARP exchange to wait for; both
# drivers send ARP over UD). Checked piece by piece.
cm_intree_pair() {
    check "icm0 (ours) and ib1 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/ib1'
    ip link set ib0 down 2>/dev/null
    check "both -> connected mode" sh -c 'echo connected > /sys/class/net/icm0/mode && echo connected > /sys/class/net/ib1/mode'
    _cm_a=$(cat /sys/class/net/icm0/address); _cm_b=$(cat /sys/class/net/ib1/address)
    ns_create A B
    ns_move icm0 A && ns_move ib1 B
    ns_addr A icm0 "$1.1/24" && ns_addr B ib1 "$1.2/24"
    check "carrier on both" wait_for 60 _cm_intree_up
    check "MTU 65520 on both" sh -c "/sbin/ip -n A link set icm0 mtu 65520 && /sbin/ip -n B link set ib1 mtu 65520"
    check "static neighbours both ways" sh -c "/sbin/ip -n A neigh replace $1.2 lladdr $_cm_b nud permanent dev icm0 &&
        /sbin/ip -n B neigh replace $1.1 lladdr $_cm_a nud permanent dev ib1"
}
_cm_intree_up() { has_carrier icm0 A && has_carrier ib1 B; }
# cm_file IF NAME: ib_ipoib_cm's debugfs file NAME (connections, send_accepted, ...) of IF
cm_file() { echo "/sys/kernel/debug/ib_ipoib_cm/$1/$2"; }
# cm_n IF [ERE]: how many connections of IF the debugfs file lists (those matching ERE)
cm_n() { grep -Ec -- "${2:-.}" "$(cm_file "$1" connections)"; }
# cm_has IF N ERE: IF lists exactly N connections and N of them match ERE (for wait_for)
cm_has() { [ "$(cm_n "$1")" -eq "$2" ] && [ "$(cm_n "$1" "$3")" -eq "$2" ]; }
# cm_field IF ERE FIELD: the value of FIELD= (not dir=) on IF's first connection matching ERE
cm_field() { grep -E -- "$2" "$(cm_file "$1" connections)" | sed -n "1s/.* $3=\([^ ]*\).*/\1/p"; }
# cm_show IF...: each interface's connections as diagnostics
cm_show() { for _i in "$@"; do diag "$_i: $(cat "$(cm_file "$_i" connections)")"; done; }
# cm_ctrs NS IF: IF's non-zero cm_/rc_ counters on one diagnostic line
cm_ctrs() { diag "$2: $(ns_exec "$1" ethtool -S "$2" | grep -E '^ +(cm_|rc_)' | grep -v ': 0$' | tr -s ' \n' ' ')"; }

# ---- iperf3
# iperf3_server NS [PORT=5201] [extra iperf3 -s args]: start a daemon in NS and wait (30 s)
# until it listens: a client that comes too early is refused and exits at once
iperf3_server() {
    _ns=$1 _port=${2:-5201}
    if [ $# -ge 2 ]; then shift 2; else shift 1; fi
    ip netns exec "$_ns" iperf3 -s -D -p "$_port" "$@" >/dev/null 2>&1 || return 1
    wait_for 30 iperf3_listening "$_ns" "$_port"
}
iperf3_listening() { ns_net "$1" /usr/bin/ss -ltn | grep -q ":$2 "; }

# ---- commands shown as typed (make demo)
# The demo's output is for a person: headed sections, each command as one would type it on a
# host ("hostA# ..."), its output indented under it. The commands run in a child shell, where
# busybox's own applets would shadow the real tools: _typed_tools makes `ip` and `ping` there
# mean iproute2 and iputils.
_typed_tools='ip() { /usr/sbin/ip "$@"; }; ping() { /usr/bin/ping "$@"; };'
section() { echo; echo "==== $* ===="; }
note() { echo "  $*"; }
# on HOST CMD: show CMD as typed on HOST, run it in namespace HOST (`ip netns exec` gives it the
# namespace's own /sys/class/net), show its output indented; CMD's exit status
on() {
    _h=$1; shift
    echo "$_h# $*"
    _o=$(ip netns exec "$_h" sh -c "$_typed_tools $*" 2>&1); _r=$?
    [ -n "$_o" ] && printf '%s\n' "$_o" | sed 's/^/    /'
    [ $_r = 0 ] || echo "    (exit status $_r)"
    return $_r
}
# on_kernel HOST CMD: the same for a file that is not per namespace (debugfs is mounted only
# in the initial mount namespace; the file is the same kernel object either way)
on_kernel() {
    _h=$1; shift
    echo "$_h# $*"
    _o=$(sh -c "$*" 2>&1); _r=$?
    [ -n "$_o" ] && printf '%s\n' "$_o" | sed 's/^/    /'
    return $_r
}
# step DESC HOST CMD: `on`, and a TAP line saying whether it worked
step() { _d=$1; shift; if on "$@"; then ok "$_d"; else not_ok "$_d"; fi; }
# iperf_shown FROM TO_ADDR SECONDS VAR [iperf3 args]: iperf3 TCP from namespace FROM, shown
# as typed with its output; VAR gets the receiver's bitrate ("205 Mbits/sec"); fails when there
# is none or it is not above zero
iperf_shown() {
    _if=$1 _it=$2 _is=$3 _iv=$4; shift 4
    echo "$_if# iperf3 -c $_it -t $_is -f m${*:+ $*}"
    _o=$(ip netns exec "$_if" iperf3 -c "$_it" -t "$_is" -f m "$@" 2>&1); _r=$?
    printf '%s\n' "$_o" | sed 's/^/    /'
    _rate=$(printf '%s\n' "$_o" | awk '/receiver/ { print $(NF-2), $(NF-1) }')
    eval "$_iv=\"\$_rate\""
    [ $_r = 0 ] && [ -n "$_rate" ] && awk -v r="${_rate%% *}" 'BEGIN { exit !(r > 0) }'
}

# ---- kernel log
# kmsg TEXT: write a line into the kernel log (to correlate scenario steps with kernel messages)
kmsg() { echo "e2e: $*" > /dev/kmsg; }
# dmesg_mark [NAME]: remember the current end of the kernel log
dmesg_mark() { _dm_mark="e2e-mark ${1:-m}.$$.$(cut -d' ' -f1 /proc/uptime)"; echo "$_dm_mark" > /dev/kmsg; }
# dmesg_since_mark: kernel log after the last dmesg_mark (all of it if none)
dmesg_since_mark() {
    if [ -n "${_dm_mark:-}" ]; then dmesg | sed -n "/$_dm_mark/,\$p" | sed 1d; else dmesg; fi
}
# dmesg_has ERE: the kernel log since the mark matches
dmesg_has() { dmesg_since_mark | grep -Eq -- "$1"; }
# wait_dmesg SECONDS ERE
wait_dmesg() { wait_for "$1" dmesg_has "$2"; }
# E2E_KERNEL_REPORT: the patterns the host fails a run on (same list as scripts/vm-test)
E2E_KERNEL_REPORT='WARNING:|BUG[: ]|Oops|KASAN|UBSAN|possible circular locking|possible recursive locking|INFO: |[Cc]orruption|blocked for more than|Kernel panic|general protection fault|ODEBUG|Call Trace|soft lockup|hard LOCKUP'
# dmesg_clean: no kernel report since the mark (the harness checks the whole log anyway;
# this lets a scenario attribute a report to a step)
dmesg_clean() { ! dmesg_since_mark | grep -Eq -- "$E2E_KERNEL_REPORT"; }
# csumerr NS: Tcp InCsumErrors + Udp InCsumErrors of a namespace (/proc/net/snmp)
csumerr() {
    ns_net "$1" /bin/cat /proc/net/snmp | awk '
        $1 == "Tcp:" && !t { for (i = 2; i <= NF; i++) if ($i == "InCsumErrors") ti = i; t = 1; next }
        $1 == "Tcp:" { tv = $ti }
        $1 == "Udp:" && !u { for (i = 2; i <= NF; i++) if ($i == "InCsumErrors") ui = i; u = 1; next }
        $1 == "Udp:" { uv = $ui }
        END { print tv + uv }'
}

# udp_rcvbuf NS: Udp RcvbufErrors of a namespace (/proc/net/snmp): datagrams its sockets
# dropped with the receive buffer full (the receiving application behind, not the path)
udp_rcvbuf() {
    ns_net "$1" /bin/cat /proc/net/snmp | awk '
        $1 == "Udp:" && !h { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") c = i; h = 1; next }
        $1 == "Udp:" { print $c }'
}
# udp_mark NS [IBDEV] / udp_counted NS [IBDEV]: the receive-side drops counted between the
# two calls: NS's Udp RcvbufErrors, plus IBDEV's drop_no_rwqe (a UD datagram with no receive
# posted) if given
udp_mark() { echo "$(udp_rcvbuf "$1") $([ -n "${2:-}" ] && hwc "$2" drop_no_rwqe || echo 0)" > "/tmp/udpmark.$1"; }
udp_counted() {
    read _um_r _um_n < "/tmp/udpmark.$1" || return 1
    echo $(( $(udp_rcvbuf "$1") - _um_r + $([ -n "${2:-}" ] && hwc "$2" drop_no_rwqe || echo 0) - _um_n ))
}
# udp_loss FILE: "LOST TOTAL" of the receiver line of an iperf3 -u run (its output in FILE):
# TOTAL is the datagrams sent up to the last one the receiver got (its highest sequence
# number), LOST those of them it never got
udp_loss() {
    awk '/receiver/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, a, "/"); l = a[1]; t = a[2] } }
         END { if (t == "") exit 1; print l, t }' "$1"
}
# udp_loss_ok FILE COUNTED MAXPCT: the iperf3 -u run in FILE delivered datagrams and lost no
# more than COUNTED (the drops counters account for, given by the caller: the receiving
# socket's RcvbufErrors, over UD also the receiving port's drop_no_rwqe), and at most MAXPCT %
# of its total ("-": no bound beyond the counted drops); prints the figures
udp_loss_ok() {
    _ul=$(udp_loss "$1") || { echo "$1: no receiver line"; cat "$1"; return 1; }
    set -- $_ul "$2" "$3"
    _ub=; [ "$4" = - ] || _ub="; bound $4 %"
    echo "lost $1 of $2 datagrams, $3 drops counted on the receiving side$_ub"
    [ "$2" -gt 0 ] && [ "$1" -le "$3" ] && { [ "$4" = - ] || [ $(($1 * 100)) -le $(($4 * $2)) ]; }
}
# check_udp_loss "description" FILE COUNTED MAXPCT: udp_loss_ok as a check, the figures shown
check_udp_loss() {
    _d=$1; shift
    _o=$(udp_loss_ok "$@"); _rc=$?
    if [ $_rc = 0 ]; then ok "$_d ($_o)"; else not_ok "$_d"; diag "$_o"; fi
    return $_rc
}
# udp_each_second FILE BPS LEN N MINPCT: the server's report in an `iperf3 -u -b BPS -l LEN -i 1
# --get-server-output` run (FILE) has at least N whole 1 s intervals, and in each B received
# (datagrams counted minus lost) at least MINPCT % of what BPS offers in it in LEN-byte
# datagrams. The run's lost-versus-counted check cannot see a stopped netdev queue: a sender
# blocked on it loses nothing, it sends less; nor can its total, since iperf3 catches up on
# its average rate once the queue wakes. Prints the per-interval figures
udp_each_second() {
    awk -v bps="$2" -v len="$3" -v n="$4" -v pct="$5" '/^Server output:/ { s = 1; next }
        s && !/sender|receiver/ && match($0, /[0-9.]+-[0-9.]+ +sec /) {
            split(substr($0, RSTART, RLENGTH), f, /[- ]+/)
            d = f[2] - f[1]; if (d < 0.5) next
            got = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, a, "/"); got = a[2] - a[1] }
            if (got == "") next
            off = bps * d / (len * 8); n1++; v = v " " got; if (got * 100 < pct * off) z++ }
        END { printf "%d whole intervals, %d below %d %% of the %d a second offered; delivered:%s\n", n1, z, pct, bps / (len * 8), v
              exit !(n1 >= n && z == 0) }' "$1"
}

# ---- hub scenarios: host 0 and peers 1..L, each in its own namespace h<i> ----
# (busybox sh has no local variables: these helpers' names start with _h, so that one run
# under wait_for, whose counter is _i, cannot reset it and wait forever)
# hub_map_netdevs NETDEV...: record which softib host each netdev belongs to (/tmp/if.<i>,
# read back with ifn i); drivers name netdevs in registration order, sysfs says the truth
hub_map_netdevs() {
    for _hd in "$@"; do
        _hh=$(ls "/sys/class/net/$_hd/device/infiniband") || return 1
        echo "$_hd" > "/tmp/if.${_hh#softib}"
    done
}
ifn() { cat "/tmp/if.$1"; }
# hub_hosts_up L PREFIXLEN [LINKCMD...]: hosts 0..L in connected mode, each moved into namespace
# h<i> with address $(addr i)/PREFIXLEN (the scenario defines addr) and brought up; each LINKCMD
# is an extra `ip link set <dev> LINKCMD` line before the up (e.g. "mtu 65520"). The hardware
# addresses are saved in /tmp/mac.<i> for hub_static_neigh.
hub_hosts_up() {
    _hlast=$1 _hplen=$2; shift 2
    for _hi in $(seq 0 "$_hlast"); do
        _hd=$(ifn "$_hi")
        echo connected > "/sys/class/net/$_hd/mode" || return 1
        cat "/sys/class/net/$_hd/address" > "/tmp/mac.$_hi" || return 1
        /sbin/ip netns add "h$_hi" && /sbin/ip link set "$_hd" netns "h$_hi" || return 1
        { echo "link set lo up"; echo "addr add $(addr "$_hi")/$_hplen dev $_hd"
          for _hc in "$@"; do echo "link set $_hd $_hc"; done; echo "link set $_hd up"
        } | /sbin/ip -n "h$_hi" -b - || return 1
    done
}
# hub_static_neigh L: permanent neighbours host 0 -> every peer and every peer -> host 0 (no ARP
# storm: L peers resolving host 0 at once overrun a UD receive ring under TCG)
hub_static_neigh() {
    for _hi in $(seq 1 "$1"); do
        echo "neigh replace $(addr "$_hi") lladdr $(cat "/tmp/mac.$_hi") nud permanent dev $(ifn 0)"
    done | /sbin/ip -n h0 -b - || return 1
    for _hi in $(seq 1 "$1"); do
        /sbin/ip -n "h$_hi" neigh replace "$(addr 0)" lladdr "$(cat /tmp/mac.0)" nud permanent \
            dev "$(ifn "$_hi")" || return 1
    done
}
# hub_carrier_all L: hosts 0..L all have carrier in their namespaces
hub_carrier_all() { for _hi in $(seq 0 "$1"); do has_carrier "$(ifn "$_hi")" "h$_hi" || return 1; done; }
# free_kib: free memory in KiB counting the pages on the per-CPU lists (/proc/zoneinfo: every
# zone's nr_free_pages plus every pageset's count). MemAvailable leaves those lists out, and
# what they hold moves by megabytes between two readings (seen in ipoib-cm-reap-cycles).
free_kib() { awk '$1 == "nr_free_pages" || $1 == "count:" { f += $2 } END { print f * 4 }' /proc/zoneinfo; }
# cm_pair_b_datagram NET: cm_ours_pair NET, then a static neighbour for A on B, a warm-up ping
# A -> B (the path, a connection), B in datagram mode (it still accepts A's REQs,
# docs/protocol.md §2.12) and A to datagram and back (its connection closes): A's next packets to B wait for a
# new connection. Checked piece by piece (cm_ours_pair's 4 checks + 4). Before the namespaces.
cm_pair_b_datagram() {
    _pb_addr_a=$(cat /sys/class/net/icm0/address)
    cm_ours_pair "$1"
    check "static neighbour for A on B" ns_ip B neigh replace "$1.1" lladdr "$_pb_addr_a" nud permanent dev icm1
    check "warm-up ping A->B (path, a connection)" wait_for 30 ns_reach A "$1.2" 1
    check "B -> datagram (it still accepts connections)" ns_exec B sh -c 'echo datagram > /sys/class/net/icm1/mode'
    check "A -> datagram and back (its connection closes)" ns_exec A sh -c 'echo datagram > /sys/class/net/icm0/mode && echo connected > /sys/class/net/icm0/mode'
}
