#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark suite (not a test: scripts/bench runs it, make test does not): the in-tree
# ib_ipoib and ours (ib_ipoib_cm) on the SAME softib ports, loaded one at a time, alternating
# within every run (the order rotates run by run), plus an A/A slot (BENCH_AA: the in-tree
# driver again, or ours) whose ratio to the same driver's slot is the noise floor
# (BENCH_AA_CELLS: `rotate`, one pair family per run, or `every` pair cell), and, with
# BENCH_OURS_B, a second build of ours (slot oursb, module
# ib_ipoib_cm_b: e.g. ours at an older commit). Every cell starts from a fresh load.
#
#   phase 1  softib hosts=2 (SRQ): datagram, then connected mode: iperf3 TCP 1 and 4 streams
#            both ways with CPU per GiB, UDP loss at a fixed load, sockperf ping-pong, ping
#            RTT 56 and 60000 B; between runs softib's raw RC ceiling (softib_rctest)
#   phase 2  softib hosts=2 srq=0: the connected-mode cells without SRQ
#   phase 3  softib hosts=BENCH_HOSTS (SRQ): setup time to N peers (BENCH_PEERS), datagram
#            and connected (each N on fresh peers; all of them in one bring-up when they fit),
#            BENCH_SETUP_RUNS times (1 by default: a bring-up of 128 netdevs is about a minute)
#   phase 4  softib hosts=BENCH_HOSTS0 srq=0: connected setup time to BENCH_PEERS0 + memory
#            per idle connection (at most ~25 hosts: the in-tree driver pins ~17 MiB per
#            non-SRQ connection, two per peer), BENCH_SETUP_RUNS0 times (2 by default); the
#            memory figure at the largest N: after the setup Ns the peers are paired with
#            each other too (BENCH_MESH=1, in the phase's last run: all pairs for ours, 300
#            connections on 25 hosts, in-tree its whole hub, 48; BENCH_MESH=2, every run:
#            in-tree's mesh too, as many pairs as its memory allows), bench-lib.sh mem_largest
#   (each peer answers within BENCH_SETUP_WINDOW s or is reported as never answering)
#   phase 5  softib hosts=3 (SRQ), connected mode: peer isolation, A's connection to a third
#            host C stalled three ways (RNR NAK forever, a trickle, C's port down) while A
#            floods C: TCP throughput, pings answered and the worst RTT to the healthy B1
#            (bench-lib.sh isolation), BENCH_RUNS times, in-tree and ours
# A driver gets connected cells only if it accepts `echo connected > mode` (probed once at
# the start, and again by every connected bring-up); the others are reported not measured.
# Figures leave as "# bench-*" diagnostics (bench-lib.sh); scripts/bench-report makes the
# JSON, table and plots. The checks only require that each step produced a figure.
# scripts/bench rewrites the BENCH_* lines and the timeout, and inlines bench-lib.sh.
# load: ib_core
# load: ib_cm
# load: softib hosts=2
# load: softib_rctest stream_mb=16
# load: ib_ipoib
# load: ib_ipoib_cm ports=nonexistent0
# mem: 4096
# timeout: 3000
# tier: full
. /e2e/lib.sh
BENCH_RUNS=3
BENCH_SETUP_RUNS=1
BENCH_SETUP_RUNS0=2
BENCH_SETUP_WINDOW=60
BENCH_TIME=4
BENCH_METRICS=all
BENCH_MODES="datagram connected"
BENCH_HOSTS=128
BENCH_PEERS="1 8 118"
BENCH_HOSTS0=25
BENCH_PEERS0="1 8 15"
BENCH_MESH=1
BENCH_UDP_RATE=200M
BENCH_STREAM_MB=512
BENCH_OURS=ours
BENCH_AA=intree
BENCH_AA_CELLS=rotate
BENCH_OURS_B=0
BENCH_OURS_PARAMS=""
BENCH_OURSB_PARAMS=""
. /e2e/bench-lib.sh

PEER=10.0.0.2
intree_ko=$(find /lib/modules/$(uname -r) -name 'ib_ipoib.ko*' | head -n1)
# drivers: intree, ours, oursb (BENCH_OURS_B=1: scripts/bench built a second tree of ours as
# module ib_ipoib_cm_b and loaded it once at boot, so vm-test put it in /e2e/modules)
ko() { case $1 in ours) echo /e2e/modules/ib_ipoib_cm.ko ;; oursb) echo /e2e/modules/ib_ipoib_cm_b.ko ;; intree) echo "$intree_ko" ;; esac; }
# the module parameters of a load: BENCH_OURS_PARAMS for ours, BENCH_OURSB_PARAMS for oursb
# (e.g. the same tree with one parameter changed: cm_csum_free=0 against ours' default 1),
# none for the in-tree driver
params() { case $1 in ours) echo "$BENCH_OURS_PARAMS" ;; oursb) echo "$BENCH_OURSB_PARAMS" ;; esac; }
modname() { case $1 in ours) echo ib_ipoib_cm ;; oursb) echo ib_ipoib_cm_b ;; intree) echo ib_ipoib ;; esac; }
slot_driver() { case $1 in intree) echo intree ;; ours) echo "$BENCH_OURS" ;; oursb) echo oursb ;; aa) echo "$BENCH_AA" ;; esac; }
# slots LIST...: the list rotated by RUN - 1, so no slot always goes first
slots() { echo "$@" | awk -v r="$RUN" '{ for (i = 0; i < NF; i++) printf "%s ", $(((i + r - 1) % NF) + 1) }'; }
nsname() { if [ "$1" = 0 ]; then echo A; else echo "B$1"; fi; }
act() { [ $DRY = 1 ] || "$@"; }

# up DRIVER MODE HOSTS: load the driver; connected mode on every netdev if asked (rc 3: the
# driver refused it); ib<i> into namespace A / B<i> as 10.0.0.<i+1>/24 (MTU 65520 when
# connected); carrier on all. The moves are one `ip -batch` and each namespace's address, MTU
# and up one more: at 16-25 hosts the bring-up was mostly process starts under TCG (three or
# four `ip` per netdev), which measure nothing.
up() {
    insmod "$(ko $1)" $(params $1) || return 1
    b_last=$(($3 - 1)) UP_HOSTS=$3
    wait_for 30 test -e /sys/class/net/ib$b_last || return 1
    b_ui=0
    if [ "$2" = connected ]; then
        while [ $b_ui -le $b_last ]; do
            echo connected 2>/dev/null > /sys/class/net/ib$b_ui/mode || return 3
            b_ui=$((b_ui + 1))
        done
    fi
    b_mtu=""; [ "$2" = connected ] && b_mtu="mtu 65520"
    b_ui=0
    while [ $b_ui -le $b_last ]; do echo "link set ib$b_ui netns $(nsname $b_ui)"; b_ui=$((b_ui + 1)); done |
        ip -batch - || return 1
    b_ui=0
    while [ $b_ui -le $b_last ]; do
        printf 'addr add 10.0.0.%d/24 dev ib%d\nlink set ib%d %s up\n' $((b_ui + 1)) $b_ui $b_ui "$b_mtu" |
            ip -n "$(nsname $b_ui)" -batch - || return 1
        b_ui=$((b_ui + 1))
    done
    b_ui=0
    while [ $b_ui -le $b_last ]; do wait_carrier ib$b_ui "$(nsname $b_ui)" 60 || return 1; b_ui=$((b_ui + 1)); done
}
# down DRIVER: links down, then unload (its netdevs go with it). Links down first, and the
# RC QPs gone, because of a known in-tree race (tests/e2e/known-issues/intree-rmmod-cm-race:
# rmmod with connected-mode TX connections still queued for reaping -> "Destroy of kernel CQ
# shouldn't fail" and a restrack leak at softib's removal). Both drivers get the same steps.
# The netdevs are where up() put them (ib<i> in nsname i, UP_HOSTS of them): one `ip` each.
down() {
    b_ui=0
    while [ $b_ui -lt "${UP_HOSTS:-0}" ]; do
        ip -n "$(nsname $b_ui)" link set ib$b_ui down 2>/dev/null
        b_ui=$((b_ui + 1))
    done
    # 15 s, and 1 s more per 8 RC QPs (the memory cell's mesh leaves up to 600; in-tree's
    # teardown of ~100 connections of 17 MiB each is slow under TCG)
    b_dw=$((15 + $(rc_qps) / 8))
    wait_for $b_dw sh -c '[ "$(rdma resource show qp 2>/dev/null | grep -c "type RC")" = 0 ]' ||
        diag "RC QPs still there $b_dw s after the links went down: $(rc_qps)"
    rmmod "$(modname $1)" && wait_for 10 sh -c '! /sbin/ip -n A link show ib0 >/dev/null 2>&1'
}
# Does DRIVER accept connected mode? Probed once per driver on the loaded softib (SRQ).
probe_cm() {
    insmod "$(ko $1)" $(params $1) && wait_for 30 test -e /sys/class/net/ib0 || return 2
    echo connected 2>/dev/null > /sys/class/net/ib0/mode; b_rc=$?
    rmmod "$(modname $1)"
    return $b_rc
}
cm_ok() { case " $CM_DRIVERS " in *" $1 "*) return 0 ;; esac; return 1; }

# fabric HOSTS SRQ: softib with these parameters (reloaded unless it already is)
FABRIC="2 1"
fabric() {
    [ "$FABRIC" = "$1 $2" ] && return 0
    FABRIC="$1 $2" SLOT=- RUN=0
    step 6 "softib hosts=$1 srq=$2" || return 0
    check "softib reloaded with hosts=$1 srq=$2" sh -c "rmmod softib && insmod /e2e/modules/softib.ko hosts=$1 srq=$2"
    wait_for 30 test -e /sys/class/infiniband/softib$(($1 - 1))
}
namespaces() { # HOSTS
    act ns_delete_all
    b_ni=0; while [ $b_ni -lt $1 ]; do act ns_create "$(nsname $b_ni)"; b_ni=$((b_ni + 1)); done
}

# bring DRIVER up for the current cell; 0 = measure, 1 = skip the cell (reported)
cell_up() { # DRIVER HOSTS
    [ $DRY = 1 ] && { EST=$((EST + 3 + $2 / 3)); return 0; }
    if [ "$MODE" = connected ] && ! cm_ok "$1"; then
        diag "bench-nm $MODE $SRQ $SLOT $RUN $1 does not accept connected mode"
        skip "$MODE srq=$SRQ $SLOT run $RUN ($1)" "not measured: $1 does not accept connected mode"
        return 1
    fi
    step $((3 + $2 / 3)) "bring-up $MODE srq=$SRQ ($1, $2 hosts)"
    up "$1" "$MODE" "$2"; b_rc=$?
    if [ $b_rc = 3 ]; then
        diag "bench-nm $MODE $SRQ $SLOT $RUN $1 refused connected mode"
        skip "$MODE srq=$SRQ $SLOT run $RUN ($1)" "not measured: $1 refused connected mode"
        down "$1"; return 1
    fi
    check "$MODE srq=$SRQ $SLOT run $RUN: $1 up on $2 hosts" test $b_rc = 0 || { down "$1"; return 1; }
}
cell_down() { act check "$MODE srq=$SRQ $SLOT run $RUN: $1 unloads" down "$1"; }

pair_cell() {
    b_d=$(slot_driver $SLOT)
    cell_up "$b_d" 2 || return 0
    act check "$MODE srq=$SRQ $SLOT run $RUN: warm-up ping" wait_for 30 ns_reach A $PEER 1
    rc_carried "$b_d" || return 0
    if want tcp_throughput cpu_per_gb ceiling_fraction; then
        for b_s in 1 4; do tcp $b_s ab; tcp $b_s ba; done
    fi
    want udp_loss && udp
    want rr_latency_p50 rr_latency_p99 && rr
    want ping_rtt && { pingrtt 56; pingrtt 60000; }
    [ $DRY = 1 ] || [ "$MODE" = datagram ] || cm_counters
    cell_down "$b_d"
}
# rc_carried DRIVER: in connected mode, after the warm-up ping, an RC connection must exist,
# or the cell would measure a fallback to UD (ours falls back per peer when the CM fails:
# docs/connected.md, REJ table) under the connected label. No RC QP: a failed check and a
# not-measured cell, with the driver's counters for the diagnosis.
rc_carried() {
    [ $DRY = 1 ] || [ "$MODE" = datagram ] && return 0
    check "$MODE srq=$SRQ $SLOT run $RUN: $1 opened an RC connection to the peer" \
        wait_for 10 sh -c '[ "$(rdma resource show qp 2>/dev/null | grep -c "type RC")" -gt 0 ]' && return 0
    diag "bench-nm $MODE $SRQ $SLOT $RUN $1 opened no RC connection (traffic would be UD)"
    cm_counters
    cell_down "$1"
    return 1
}
# cm_counters: the non-zero ethtool counters of both ends (RNR, drops, CM events: what a slow
# or failed connected cell is diagnosed from)
cm_counters() {
    for b_cn in A B1; do
        b_ci=ib0; [ $b_cn = B1 ] && b_ci=ib1
        diag "bench counters $MODE srq=$SRQ $SLOT run $RUN $b_cn/$b_ci: $(ns_exec $b_cn ethtool -S $b_ci 2>/dev/null |
            awk -F': *' 'NR > 1 && $2 != 0 { sub(/^ */, "", $1); printf "%s=%s ", $1, $2 }')"
    done
}
pair_phase() { # SRQ MODE...
    SRQ=$1; shift
    [ $# -gt 0 ] || return 0
    want tcp_throughput cpu_per_gb udp_loss rr_latency_p50 rr_latency_p99 ping_rtt ceiling_fraction aa_ratio || return 0
    fabric 2 "$SRQ"
    namespaces 2
    act iperf3_server B1
    act sockperf_server_b
    RUN=1 PHASE_RUNS=$BENCH_RUNS
    while [ $RUN -le $BENCH_RUNS ]; do
        for MODE in "$@"; do
            # the A/A slot where aa_cell puts it (every cell, or one family per run)
            for SLOT in $(slots $PAIR_SLOTS); do
                [ $SLOT = aa ] && ! aa_cell "$BENCH_AA_CELLS" "$PAIR_FAMILIES" $RUN "$MODE$SRQ" && continue
                pair_cell
            done
        done
        [ "$SRQ" = 1 ] && want ceiling_fraction && { SLOT=rctest; ceiling; }
        RUN=$((RUN + 1))
    done
}
# one sockperf server per phase, in that phase's B1 (the previous one's namespace is gone)
sockperf_server_b() {
    [ -n "${SOCKPERF_PID:-}" ] && kill "$SOCKPERF_PID" 2>/dev/null
    ns_exec B1 sockperf server -i 0.0.0.0 -p 11111 >/dev/null 2>&1 &
    SOCKPERF_PID=$!
    check "sockperf server listens in B1" wait_for 20 sh -c "/sbin/ip netns exec B1 ss -uln | grep -q ':11111 '"
}

setup_cell() { # N,N...: one bring-up, each N on peers no earlier N of it touched
    b_d=$(slot_driver $SLOT)
    cell_up "$b_d" "$HOSTS" || return 0
    b_first=1 MEM_AFTER="" MEM_BASE=""
    for b_sn in $(echo "$1" | tr ',' ' '); do setup "$b_sn" $b_first; b_first=$((b_first + b_sn)); done
    # the memory at the largest N, on the bring-up that holds the largest N (bench-lib.sh
    # mem_largest). BENCH_MESH=1: in the phase's last run only, ours' mesh and in-tree's
    # whole hub (the mesh costs ~25 guest s quiet, ~70 at load 10: once fits the 30-minute
    # run); 2: every run, in-tree's mesh too (as many pairs as its memory allows)
    if [ $MEM = 1 ] && [ "$BENCH_MESH" != 0 ]; then
        case ",$1," in *",$PEERS_MAX,"*)
            if [ "$BENCH_MESH" = 2 ]; then mem_largest $((b_first - 1)) all
            elif [ "$RUN" = "$PHASE_RUNS" ]; then mem_largest $((b_first - 1)) "$([ "$b_d" = intree ] && echo 0 || echo all)"
            fi ;;
        esac
    fi
    cell_down "$b_d"
}
# setup_groups HOSTS: the phase's PEERS packed into bring-ups, ascending, as many per bring-up
# as the HOSTS - 1 peers hold ("1 8 15" on 25 hosts: "1,8,15"; on 16: "1,8 15")
setup_groups() {
    echo $PEERS | tr ' ' '\n' | sort -n | awk -v cap=$(($1 - 1)) '
        $1 > cap { next }
        used + $1 > cap { printf "%s ", g; g = ""; used = 0 }
        { g = (g == "") ? $1 : g "," $1; used += $1 }
        END { if (g != "") print g }'
}
setup_phase() { # HOSTS "PEERS" SRQ MODE...
    HOSTS=$1 PEERS=$2 SRQ=$3; shift 3
    [ $# -gt 0 ] || return 0
    want setup_time mem_per_idle_conn conns_per_gib || return 0
    # memory is measured in the srq=0 phase only: with the memory metrics alone, no SRQ phase
    [ "$SRQ" = 1 ] && ! want setup_time && return 0
    PEERS_MAX=$(echo $PEERS | tr ' ' '\n' | sort -n | tail -n1)
    fabric "$HOSTS" "$SRQ"
    namespaces "$HOSTS"
    RUN=1 PHASE_RUNS=$BENCH_SETUP_RUNS
    [ "$SRQ" = 0 ] && PHASE_RUNS=$BENCH_SETUP_RUNS0
    while [ $RUN -le $PHASE_RUNS ]; do
        for MODE in "$@"; do
            MEM=0
            [ "$MODE$SRQ" = connected0 ] && want mem_per_idle_conn conns_per_gib && MEM=1
            for b_group in $(setup_groups "$HOSTS"); do
                for SLOT in $(slots $SETUP_SLOTS); do setup_cell "$b_group"; done
            done
        done
        RUN=$((RUN + 1))
    done
}

# isolation_phase: the peer-isolation cells (phase 5)
isolation_phase() {
    has_mode connected || return 0
    want isolation_rtt_max isolation_answered isolation_tcp || return 0
    fabric 3 1
    namespaces 3
    MODE=connected SRQ=1 RUN=1 PHASE_RUNS=$BENCH_RUNS
    while [ $RUN -le $BENCH_RUNS ]; do
        for SLOT in $(slots intree ours); do isolation_cell; done
        RUN=$((RUN + 1))
    done
}
isolation_cell() {
    b_d=$(slot_driver $SLOT)
    cell_up "$b_d" 3 || return 0
    act check "$MODE srq=$SRQ $SLOT run $RUN: warm-up ping" wait_for 30 ns_reach A $PEER 1
    rc_carried "$b_d" || return 0
    for b_case in forever trickle gone; do isolation $b_case; done
    [ $DRY = 1 ] || cm_counters
    cell_down "$b_d"
}

has_mode() { case " $BENCH_MODES " in *" $1 "*) return 0 ;; esac; return 1; }
modes_srq() { # the modes a softib with SRQ=$1 is measured in
    if [ "$1" = 1 ]; then has_mode datagram && echo datagram; fi
    has_mode connected && echo connected
}
# the pair families measured, in the order they run (aa_cell rotates the A/A over them)
PAIR_FAMILIES=$(echo $(modes_srq 1 | sed 's/$/1/') $(modes_srq 0 | sed 's/$/0/'))
PAIR_SLOTS="intree ours"
[ "$BENCH_OURS_B" = 1 ] && PAIR_SLOTS="$PAIR_SLOTS oursb"
[ "$BENCH_AA" != none ] && want aa_ratio && PAIR_SLOTS="$PAIR_SLOTS aa"
# the setup/memory phases: the drivers only (their A/A would double the longest bring-ups;
# the report gives them the largest A/A of the run as their floor)
SETUP_SLOTS="intree ours"
MEM=0 SLOT=- RUN=0 MODE=- SRQ=-
benchmark() {
    pair_phase 1 $(modes_srq 1)
    pair_phase 0 $(modes_srq 0)
    setup_phase "$BENCH_HOSTS" "$BENCH_PEERS" 1 $(modes_srq 1)
    setup_phase "$BENCH_HOSTS0" "$BENCH_PEERS0" 0 $(has_mode connected && echo connected)
    isolation_phase
}

dmesg_mark bench
check "unload the harness-loaded drivers and softib_rctest" sh -c 'rmmod ib_ipoib && rmmod ib_ipoib_cm && rmmod softib_rctest'
[ "$BENCH_OURS_B" = 1 ] && check "unload the harness-loaded second build of ours (ib_ipoib_cm_b)" rmmod ib_ipoib_cm_b
CM_DRIVERS=""
b_probe="intree $BENCH_OURS"; [ "$BENCH_OURS_B" = 1 ] && b_probe="$b_probe oursb"
for b_d in $b_probe; do
    probe_cm $b_d; b_rc=$?
    [ $b_rc = 2 ] && { not_ok "$b_d loads for the connected-mode probe"; continue; }
    [ $b_rc = 0 ] && CM_DRIVERS="$CM_DRIVERS $b_d"
    diag "bench-cm $b_d $([ $b_rc = 0 ] && echo accepts || echo refuses) connected mode"
done
# what the memory cells read (bench-report puts it in every memory record: a comparison
# across measures is flagged, not judged)
diag "bench-measure mem free_kib"
DRY=1; benchmark; DRY=0 FABRIC="2 1"
diag "bench-plan $EST s estimated; runs $BENCH_RUNS x $BENCH_TIME s, setup phases $BENCH_SETUP_RUNS (srq=0: $BENCH_SETUP_RUNS0), window $BENCH_SETUP_WINDOW s; slots $PAIR_SLOTS (A/A: $BENCH_AA, cells: $BENCH_AA_CELLS over $PAIR_FAMILIES); metrics $BENCH_METRICS; modes $BENCH_MODES; connected mode: $CM_DRIVERS"
benchmark
diag "bench-at $DONE $EST $(cut -d' ' -f1 /proc/uptime) done - run -/-"
[ -n "${SOCKPERF_PID:-}" ] && kill "$SOCKPERF_PID" 2>/dev/null
check "kernel log clean" dmesg_clean
ns_delete_all
done_testing
exit $(tap_status)
