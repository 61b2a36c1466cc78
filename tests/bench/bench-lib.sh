# SPDX-License-Identifier: GPL-2.0
# Measurement primitives of the benchmark (busybox sh). scripts/bench inlines this file into
# tests/bench/ipoib-bench.sh in place of its `. /e2e/bench-lib.sh` line; it needs /e2e/lib.sh.
#
# Every figure leaves the VM as one TAP diagnostic line that scripts/bench-report reads:
#   # bench-rec MODE SRQ SLOT RUN NAME STREAMS DIRECTION SIZE VALUE
# ('-' where a field does not apply; MODE/SRQ/SLOT/RUN are the globals of the cell being
# measured). A cell a driver cannot run (connected mode refused) is one line
#   # bench-nm MODE SRQ SLOT RUN REASON...
# Progress: `# bench-at DONE TOTAL UPTIME LABEL` before each step (DONE/TOTAL in estimated
# seconds; scripts/bench-progress turns them into an ETA). Nothing here judges a figure: the
# checks only say that a step produced one.

# Dry run (DRY=1): every step only adds its estimated cost to EST, so the plan's total is
# known before the first measurement, from the same loops that measure.
DRY=0 EST=0 DONE=0
step() { # COST LABEL: 0 = measure now, 1 = dry run (cost added)
    if [ $DRY = 1 ]; then EST=$((EST + $1)); return 1; fi
    diag "bench-at $DONE $EST $(cut -d' ' -f1 /proc/uptime) $2 $SLOT run $RUN/${PHASE_RUNS:-$BENCH_RUNS}"
    DONE=$((DONE + $1))
    return 0
}
rec() { diag "bench-rec $MODE $SRQ $SLOT $RUN $1 $2 $3 $4 $5"; }
want() { # NAME...: is any of these metrics selected?
    for b_m in "$@"; do
        case ",$BENCH_METRICS," in ",all,"|*",$b_m,"*) return 0 ;; esac
    done
    return 1
}
# aa_cell CELLS FAMILIES RUN FAMILY: does the A/A slot run in this pair cell? CELLS `every`:
# yes, in every run of every family; `rotate`: in run r only for the ((r - 1) mod F)-th of
# the F families measured (FAMILIES: "datagram1 connected1 connected0", MODE and SRQ joined),
# so with 3 runs each family has its A/A in one run and the run pays one A/A cell per run,
# not one per family (docs/testing.md, Benchmark: what the floor then covers).
aa_cell() {
    [ "$1" = every ] && return 0
    b_fi=-1 b_nf=0
    for b_f in $2; do
        [ "$b_f" = "$4" ] && b_fi=$b_nf
        b_nf=$((b_nf + 1))
    done
    [ $b_fi -ge 0 ] && [ $(( ($3 - 1) % b_nf )) = $b_fi ]
}
# a number > 0 (awk: busybox sh has no floating point)
positive() { awk -v x="$1" 'BEGIN { exit !(x ~ /^[0-9.]+$/ && x + 0 > 0) }'; }
both_positive() { positive "$1" && positive "$2"; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
# CPU time outside idle and iowait, in USER_HZ (100/s) ticks, of all CPUs together: both
# ends of every transfer run in this VM, so this is the cost of sender + receiver.
cpu_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# tcp STREAMS DIR: iperf3 TCP from A (DIR ab) or to A (ba, -R), receiver Mbit/s; the CPU
# seconds per GiB moved over the same window.
tcp() {
    step $((BENCH_TIME + 1)) "tcp_throughput $MODE srq=$SRQ P$1 $2" || return 0
    b_r=""; [ "$2" = ba ] && b_r=-R
    b_c0=$(cpu_busy)
    b_out=$(ns_exec A iperf3 -c "$PEER" -t "$BENCH_TIME" -f m -P "$1" $b_r 2>&1)
    b_c1=$(cpu_busy)
    # the last receiver line: the only one with -P 1, [SUM] otherwise
    # "[SUM]   0.00-5.04   sec   693 MBytes  1153 Mbits/sec   receiver"
    b_l=$(echo "$b_out" | grep ' receiver$' | tail -n1)
    b_mbit=$(echo "$b_l" | awk '{ print $(NF-2) }')
    b_mib=$(echo "$b_l" | awk '{ f = ($(NF-3) == "GBytes") ? 1024 : ($(NF-3) == "KBytes") ? 1 / 1024 : 1; print $(NF-4) * f }')
    if check "$MODE srq=$SRQ $SLOT run $RUN: iperf3 -P $1 $2 moved data ($b_mbit Mbit/s)" positive "$b_mbit"; then
        rec tcp_throughput "$1" "$2" - "$b_mbit"
        rec cpu_per_gb "$1" "$2" - "$(awk -v c=$((b_c1 - b_c0)) -v m="$b_mib" 'BEGIN { printf "%.3f", c / 100 / (m / 1024) }')"
    else
        diag "$b_out"
    fi
}

# udp: iperf3 UDP A->B at the fixed offered load BENCH_UDP_RATE, 1400-byte datagrams (they fit
# the datagram-mode MTU of 2044, so IP never fragments them); the receiver's loss %.
udp() {
    step $((BENCH_TIME + 1)) "udp_loss $MODE srq=$SRQ $BENCH_UDP_RATE" || return 0
    b_out=$(ns_exec A iperf3 -c "$PEER" -u -b "$BENCH_UDP_RATE" -l 1400 -t "$BENCH_TIME" -f m 2>&1)
    # "[  5]   0.00-5.00   sec   119 MBytes   200 Mbits/sec  0.034 ms  12/89286 (0.013%)  receiver"
    b_l=$(echo "$b_out" | grep ' receiver$' | tail -n1)
    b_pct=$(echo "$b_l" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\(.*%\)$/) { gsub(/[()%]/, "", $i); print $i } }')
    b_tot=$(echo "$b_l" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, a, "/"); print a[2] } }')
    if check "$MODE srq=$SRQ $SLOT run $RUN: iperf3 UDP $BENCH_UDP_RATE: $b_l" sh -c "[ -n '$b_pct' ] && [ '${b_tot:-0}' -gt 0 ]"; then
        rec udp_loss 1 ab - "$b_pct"
    else
        diag "$b_out"
    fi
}

# rr: sockperf UDP ping-pong A->B, 64-byte messages, for BENCH_TIME s: p50 and p99 in usec
# (the server runs in B for the whole phase: sockperf_server).
sockperf_server() {
    ns_exec B sockperf server -i 0.0.0.0 -p 11111 >/dev/null 2>&1 &
    wait_for 20 sh -c "ip netns exec B ss -uln | grep -q ':11111 '"
}
rr() {
    step $((BENCH_TIME + 3)) "rr_latency $MODE srq=$SRQ" || return 0
    b_out=$(ns_exec A sockperf ping-pong -i "$PEER" -p 11111 -t "$BENCH_TIME" -m 64 2>&1)
    b_p50=$(echo "$b_out" | sed -n 's/.*percentile 50\.000 = *\([0-9.]*\).*/\1/p')
    b_p99=$(echo "$b_out" | sed -n 's/.*percentile 99\.000 = *\([0-9.]*\).*/\1/p')
    if check "$MODE srq=$SRQ $SLOT run $RUN: sockperf ping-pong p50 $b_p50 p99 $b_p99 usec" both_positive "$b_p50" "$b_p99"; then
        rec rr_latency_p50 1 ab 64 "$b_p50"
        rec rr_latency_p99 1 ab 64 "$b_p99"
    else
        diag "$b_out"
    fi
}

# pingrtt SIZE: 4 x BENCH_TIME echo requests A->B, 50 ms apart; the median RTT in ms.
pingrtt() {
    b_n=$((BENCH_TIME * 4))
    step $((b_n / 20 + 1)) "ping_rtt $MODE srq=$SRQ ${1} B" || return 0
    b_out=$(ns_exec A ping -n -c "$b_n" -i 0.05 -W 2 -s "$1" "$PEER" 2>&1)
    b_med=$(echo "$b_out" | sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' | tr '\n' ' ' | median)
    b_got=$(echo "$b_out" | grep -c ' time=')
    if check "$MODE srq=$SRQ $SLOT run $RUN: ping -s $1: $b_got/$b_n replies, median ${b_med:-?} ms" positive "$b_med"; then
        rec ping_rtt 1 ab "$1" "$b_med"
    else
        diag "$b_out"
    fi
}

# ceiling: softib's raw RC throughput, softib_rctest's stream case (two RC QPs on softib0,
# 64 KiB SENDs, in the kernel: no IP, no ipoib) between driver runs; Mbit/s.
ceiling() {
    step 5 "rc_ceiling (softib_rctest stream ${BENCH_STREAM_MB} MiB)" || return 0
    dmesg_mark ceil
    insmod /e2e/modules/softib_rctest.ko dev=softib0 stream_mb="$BENCH_STREAM_MB"
    b_l=$(dmesg_since_mark | grep 'softib_rctest: ok .* stream ')
    b_mbs=$(echo "$b_l" | sed -n 's/.*SENDs: \([0-9]*\) MB\/s.*/\1/p')
    check "softib_rctest unloads" rmmod softib_rctest
    if check "run $RUN: RC ceiling: $b_l" positive "$b_mbs"; then
        diag "bench-ceil $RUN $((b_mbs * 8))"
    else
        diag "$(dmesg_since_mark | grep softib_rctest | tail -n 5)"
    fi
}

# RC QPs on every softib device (each connection is two: one on each end)
rc_qps() { rdma resource show qp 2>/dev/null | grep -c 'type RC'; }

# setup N FIRST: with no neighbour, path or connection to them yet (a fresh bring-up, or
# peers no earlier setup of this bring-up touched), A pings peers FIRST..FIRST+N-1
# (B<i>, 10.0.0.<i+1>) all at once, one `ping -c 1 -w BENCH_SETUP_WINDOW -i 0.2` each; each
# peer's setup time is ping's own measure of its first answer, taken in the guest:
# (icmp_seq - 1) x 200 ms + that reply's RTT, from that ping's first request, so the cost of
# starting N processes in this VM is not counted. A's ARP for the window: its mcast_solicit
# is raised to the window's seconds (one probe a second, as before), so a neighbour whose
# first 3 probes went unanswered is not declared failed ("Destination Host Unreachable",
# which iputils counts towards -c 1 and ends the ping: 30 of 63 in-tree peers at once on 73
# hosts under load 13) but probed on, as a ping without -c would keep it. If a
# ping still ends without a reply, it is started again until the window has passed; that
# peer's time is then the retry's start (from /proc/uptime, so it includes one process
# start) + the retry's own measure, and the check line says how many needed a retry.
# Figures per N (up to the most hosts softib and the VM hold, where not every peer may
# answer): setup_answered (peers that answered within the window), setup_time_p50 and
# setup_time_p90 (nearest rank over all N peers, a peer that never answered ranking last:
# no figure when the rank falls on one) and setup_time, the slowest peer's, the time until
# all N answered (no figure unless all did). The peers that never answered are listed
# ("# bench-unanswered"), not dropped.
# With MEM=1 (connected mode without SRQ) also the memory the connections pin once idle:
# free memory before the pings minus after (caches dropped both times; free_kib counts the
# pages on the per-CPU lists, which MemAvailable leaves out: up to megabytes of noise
# between two readings), per RC connection
# (a pair of RC QPs: rdma resource counts both ends, which live in this VM). The caller
# empties MEM_AFTER at each bring-up.
MEM_AFTER=""
# The slab part, per cache, saved next to each free-memory reading:
# /proc/slabinfo's active objects x object size (what was asked) and slabs x pages per slab
# (what the allocator holds), bytes. slab_diff prints, for the caches whose slabs grew by at
# least 8 KiB over all connections, "cache +objects/+slabs" in KiB per connection (one
# decimal), largest first. SLUB merges caches of one size (kmalloc-1k serves several
# types), so a line is a size class; a cache's per-CPU partial slabs make it noisy.
slab_save() { awk 'NR > 2 { print $1, $2 * $4, $15 * $6 * 4096 }' /proc/slabinfo > "$1"; }
slab_diff() { # BEFORE AFTER CONNS
    awk -v n="$3" 'FNR == NR { o[$1] = $2; p[$1] = $3; next }
        { d = $3 - p[$1]; if (d >= 8192) printf "%d %s +%.1f/+%.1f\n", d, $1, ($2 - o[$1]) / 1024 / n, d / 1024 / n }' "$1" "$2" |
        sort -rn | cut -d' ' -f2- | head -n 16 | tr '\n' ' '
}
ms_now() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
# setup_ping ADDR OUT: ping ADDR from A until its first reply or BENCH_SETUP_WINDOW s; OUT:
# "offset MS TRIES" (MS: the last attempt's start after the first's, 0 for the first) + that
# attempt's output. A retry gets what is left of the window.
setup_ping() {
    b_t0=$(ms_now) b_off=0 b_n=0 b_w=$BENCH_SETUP_WINDOW
    while :; do
        b_n=$((b_n + 1))
        ns_exec A ping -n -c 1 -w "$b_w" -i 0.2 "$1" > "$2.p" 2>&1
        grep -q ' time=' "$2.p" && break
        b_now=$(ms_now)
        b_w=$(( BENCH_SETUP_WINDOW - (b_now - b_t0) / 1000 ))
        [ $b_w -ge 1 ] || break
        b_off=$((b_now - b_t0))
    done
    { echo "offset $b_off $b_n"; cat "$2.p"; } > "$2"
    rm -f "$2.p"
}
setup() {
    step $((2 + $1 / 4 + MEM * 6)) "setup_time $MODE srq=$SRQ N=$1" || return 0
    # the baseline: the previous N's settled "after" when this bring-up measured one (nothing
    # ran since but diagnostics), else a settle of its own
    if [ $MEM = 1 ] && [ -n "$MEM_AFTER" ]; then
        set -- "$1" "$2" $MEM_AFTER; b_m0=$3 b_s0=$4 b_q0=$5 b_a0=$6
    elif [ $MEM = 1 ]; then
        settle; b_m0=$(free_kib); b_a0=$(meminfo MemAvailable); b_s0=$(meminfo Slab); b_q0=$(rc_qps)
        slab_save /tmp/slab.after
        cp /tmp/slab.after /tmp/slab.base
        MEM_BASE="$b_m0 $b_s0 $b_q0 $b_a0"	# the bring-up's first reading (mem_largest)
    fi
    if [ $MEM = 1 ]; then mv /tmp/slab.after /tmp/slab.before; fi
    rm -f /tmp/setup.*
    # A's ARP probes on for the whole window (above); a fresh netdev each bring-up
    ns_exec A sh -c "echo $((BENCH_SETUP_WINDOW + 2)) > /proc/sys/net/ipv4/neigh/ib0/mcast_solicit"
    b_si=$2 b_pids=""
    while [ $b_si -lt $(($2 + $1)) ]; do
        setup_ping "10.0.0.$((b_si + 1))" /tmp/setup.$b_si &
        b_pids="$b_pids $!"; b_si=$((b_si + 1))
    done
    for b_p in $b_pids; do wait "$b_p"; done
    b_si=$2 b_all="" b_retried=0 b_lost="" b_peers=""
    while [ $b_si -lt $(($2 + $1)) ]; do
        b_off=$(sed -n '1s/^offset \([0-9]*\) .*/\1/p' /tmp/setup.$b_si)
        grep -q '^offset [1-9]' /tmp/setup.$b_si && b_retried=$((b_retried + 1))
        b_sr=$(sed -n 's/.*icmp_seq=\([0-9]*\) .* time=\([0-9.]*\) ms.*/\1 \2/p' /tmp/setup.$b_si | head -n 1)
        b_t=$(echo "$b_sr" | awk -v off="${b_off:-0}" 'NF == 2 { print off + ($1 - 1) * 200 + $2 }')
        if [ -n "$b_t" ]; then b_all="$b_all $b_t"; else b_lost="$b_lost B$b_si"; fi
        b_peers="$b_peers B$b_si:$(echo "${b_sr:--}" | tr ' ' /)"
        [ "${b_off:-0}" = 0 ] || b_peers="$b_peers@+$b_off"
        b_si=$((b_si + 1))
    done
    # Kept for the diagnosis of a cell that disagrees (a one-run figure cannot be explained
    # afterwards without it): which echo each peer first answered and that reply's RTT
    # (echo 1 late: its setup waited; a later echo: the first ones were dropped), and A's
    # counters after the pings (path queries, back-off and queue drops: docs/datagram.md).
    diag "bench-peers $MODE $SRQ $SLOT $RUN $1 (first answered echo/its RTT ms[@+retry start ms]):$b_peers"
    diag "bench-counters $MODE $SRQ $SLOT $RUN $1 A/ib0: $(ns_exec A ethtool -S ib0 2>/dev/null |
        awk -F': *' 'NR > 1 && $2 != 0 { sub(/^ */, "", $1); printf "%s=%s ", $1, $2 }')"
    # answered count, then p50 p90 max by nearest rank over all N (never answered: last)
    set -- "$1" "$2" $(echo $b_all | tr ' ' '\n' | grep . | sort -n | awk -v n="$1" '
        { t[NR] = $1 }
        function rank(p,  k) { k = int(p * n); if (k < p * n) k++; if (k < 1) k = 1; return k <= NR ? t[k] : "-" }
        END { print NR + 0, rank(0.5), rank(0.9), rank(1) }')
    b_got=$3 b_p50=$4 b_p90=$5 b_max=$6
    if check "$MODE srq=$SRQ $SLOT run $RUN: $b_got/$1 peers (B$2..) answered within ${BENCH_SETUP_WINDOW} s: p50 $b_p50 p90 $b_p90 all $b_max ms ($b_retried needed a second ping)" test "$b_got" -gt 0; then
        rec setup_answered - - "$1" "$b_got"
        [ "$b_p50" = - ] || rec setup_time_p50 - - "$1" "$b_p50"
        [ "$b_p90" = - ] || rec setup_time_p90 - - "$1" "$b_p90"
        [ "$b_max" = - ] || rec setup_time - - "$1" "$b_max"
    fi
    if [ -n "$b_lost" ]; then
        diag "bench-unanswered $MODE $SRQ $SLOT $RUN $1 $((${1} - b_got)) within ${BENCH_SETUP_WINDOW} s:$b_lost"
        for b_l in $b_lost; do sed "s/^/# $b_l: /" /tmp/setup.${b_l#B} | tail -n 4; done
    fi
    [ $MEM = 1 ] || return 0
    sleep 2
    settle; b_m1=$(free_kib); b_a1=$(meminfo MemAvailable); b_s1=$(meminfo Slab); b_q1=$(rc_qps)
    slab_save /tmp/slab.after
    MEM_AFTER="$b_m1 $b_s1 $b_q1 $b_a1"
    b_conns=$(( (b_q1 - b_q0) / 2 ))
    diag "bench mem $MODE srq=$SRQ $SLOT run $RUN N=$1: $b_conns RC connections, free (with the per-CPU lists) -$((b_m0 - b_m1)) KiB, MemAvailable -$((b_a0 - b_a1)) KiB, Slab +$((b_s1 - b_s0)) KiB"
    if [ "$b_conns" -gt 0 ]; then
        diag "bench slab $MODE srq=$SRQ $SLOT run $RUN N=$1, KiB per connection: $(slab_diff /tmp/slab.before /tmp/slab.after $b_conns)"
    fi
    if check "$SLOT run $RUN N=$1: the pings opened RC connections ($b_conns)" test "$b_conns" -gt 0; then
        rec mem_total - - "$1" "$((b_m0 - b_m1))"
        rec mem_conns - - "$1" "$b_conns"
        # without the mesh (BENCH_MESH=0) the figure is the hub's largest N, from the previous
        # N's reading; mem_n: the connections it divides by
        if [ "$1" = "$PEERS_MAX" ] && [ "$BENCH_MESH" = 0 ]; then
            # size N: the hub's figure is another quantity than the largest N's
            rec mem_per_idle_conn - - "$1" "$(( (b_m0 - b_m1) / b_conns ))"
            rec mem_n - - - "$b_conns"
        fi
    fi
    return 0
}

# mem_largest HUB_PEERS [MAX_PAIRS]: the memory cell at the largest N (per-connection memory
# is taken at the largest N, where noise matters least). After the bring-up's
# setup Ns (A pinged B1..B<HUB_PEERS>), the peers B1..B<HOSTS-1> are paired with each other
# too, one ping per pair (Bi -> Bj, i < j: one direction, no crossing REQs), pairs in order
# of j - i (so a partial mesh spreads over every peer), as many as the driver's memory
# allows: the free memory now less MESH_RESERVE_MIB, over 5/4 of what a peer cost the hub
# (its connections per peer included: ours ~0.25 MiB and one per pair; in-tree ~17 MiB and
# two), at most all (HOSTS-1)(HOSTS-2)/2 of them and at most MAX_PAIRS (a number, or `all`,
# the default; setup_cell passes 0 for in-tree with BENCH_MESH=1: its figure is then the
# bring-up's whole hub, 48 connections on 25 hosts). Each source peer pings its targets one
# after the other, all sources at once. Then idle (2 s, caches dropped) and the figure:
# the free-memory drop since the bring-up's first reading over EVERY RC connection then
# open (the hub's and the mesh's: all idle, each opened by one ping), recorded as
# mem_per_idle_conn with mem_n = that connection count (the report shows each driver's).
# A connection is a QP pair whatever its two ends are; per end the same objects (a
# neighbour, a path, an AH, a ring, a QP), and each peer's CQ grows past the 16
# connections it starts with as the hub's does. When memory allows no pair, the figure is
# the hub's connections alone (from the same first reading). BENCH_MESH=0: not run (setup() records
# the hub's largest N instead). Only on the bring-up that holds PEERS_MAX (setup_cell).
MESH_RESERVE_MIB=640
MEM_BASE=""
mem_largest() {
    step $((8 + HOSTS * HOSTS / 40)) "mem_largest $MODE srq=$SRQ ($HOSTS hosts)" || return 0
    b_cap=${2:-all}	# before the set -- below
    if [ -z "$MEM_BASE" ] || [ -z "$MEM_AFTER" ] || [ "$1" -lt 1 ]; then
        not_ok "$SLOT run $RUN: mem_largest has the hub's readings"; return 0
    fi
    set -- "$1" $MEM_BASE; b_m0=$2 b_s0=$3 b_q0=$4 b_a0=$5
    set -- "$1" $MEM_AFTER; b_mh=$2 b_qh=$4
    b_hc=$(( (b_qh - b_q0) / 2 )) b_np=$((HOSTS - 1))
    b_kpp=$(( (b_m0 - b_mh) / $1 ))
    [ "$b_kpp" -ge 1 ] || b_kpp=1
    b_all=$(( b_np * (b_np - 1) / 2 ))
    b_allow=$(( (b_mh - MESH_RESERVE_MIB * 1024) / (b_kpp + b_kpp / 4) ))
    [ "$b_allow" -ge 0 ] || b_allow=0
    b_pairs=$b_allow; [ "$b_pairs" -le "$b_all" ] || b_pairs=$b_all
    case $b_cap in all) ;; *) [ "$b_pairs" -le "$b_cap" ] || b_pairs=$b_cap ;; esac
    awk -v n=$b_np 'BEGIN { for (d = 1; d < n; d++) for (i = 1; i + d <= n; i++) print i, i + d }' |
        head -n "$b_pairs" > /tmp/mesh.pairs
    rm -f /tmp/mesh.lost
    b_pids=""
    # one window for the whole mesh: a source's pings run one after the other,
    # so a window per ping would let each unanswered pair add a minute to its source's chain;
    # a ping left without time is counted unanswered, not run
    b_end=$(( $(ms_now) / 1000 + BENCH_SETUP_WINDOW ))
    for b_i in $(cut -d' ' -f1 /tmp/mesh.pairs | sort -un); do
        ns_exec B$b_i sh -c "echo $((BENCH_SETUP_WINDOW + 2)) > /proc/sys/net/ipv4/neigh/ib$b_i/mcast_solicit"
        ( for b_j in $(awk -v i=$b_i '$1 == i { print $2 }' /tmp/mesh.pairs); do
              b_w=$(( b_end - $(ms_now) / 1000 ))
              [ "$b_w" -ge 1 ] && ns_exec B$b_i ping -n -c 1 -w "$b_w" -i 0.2 10.0.0.$((b_j + 1)) >/dev/null 2>&1 ||
                  echo "B$b_i-B$b_j" >> /tmp/mesh.lost
          done ) &
        b_pids="$b_pids $!"
    done
    for b_p in $b_pids; do wait "$b_p"; done
    b_lost=$(cat /tmp/mesh.lost 2>/dev/null | wc -l)
    sleep 2
    settle; b_m1=$(free_kib); b_a1=$(meminfo MemAvailable); b_s1=$(meminfo Slab); b_q1=$(rc_qps)
    slab_save /tmp/slab.after
    b_conns=$(( (b_q1 - b_q0) / 2 ))
    diag "bench mem-largest $MODE srq=$SRQ $SLOT run $RUN: $HOSTS hosts; hub: $1 peers, $b_hc RC connections, $b_kpp KiB per peer; mesh: $b_pairs of $b_all pairs (memory allows $b_allow above $MESH_RESERVE_MIB MiB), $b_lost unanswered$([ "$b_lost" -gt 0 ] && echo ": $(head -n 8 /tmp/mesh.lost | tr '\n' ' ')"); $b_conns RC connections in all: free (with the per-CPU lists) -$((b_m0 - b_m1)) KiB, MemAvailable -$((b_a0 - b_a1)) KiB, Slab +$((b_s1 - b_s0)) KiB since the bring-up's first reading"
    [ "$b_conns" -gt 0 ] && diag "bench slab $MODE srq=$SRQ $SLOT run $RUN largest N=$b_conns connections, KiB per connection: $(slab_diff /tmp/slab.base /tmp/slab.after $b_conns)"
    # no pair allowed (a VM too small for one more in-tree pair): the figure is the hub's
    # every answered pair holds at least one connection of its own (ours one, in-tree two), and
    # at most a tenth of the pairs went unanswered within the window (one connection out
    # of hundreds of pairs must not pass)
    check "$SLOT run $RUN: the mesh's $b_pairs pairs: $((b_pairs - b_lost)) answered, $((b_conns - b_hc)) connections" \
        test "$((b_conns - b_hc))" -ge "$((b_pairs - b_lost))" -a "$((b_lost * 10))" -le "$b_pairs"
    if check "$SLOT run $RUN: largest N: $b_conns idle RC connections ($b_hc hub + $((b_conns - b_hc)) mesh)" test "$b_conns" -gt 0; then
        rec mem_total - - "$b_conns" "$((b_m0 - b_m1))"
        rec mem_conns - - "$b_conns" "$b_conns"
        rec mem_per_idle_conn - - - "$(( (b_m0 - b_m1) / b_conns ))"
        rec mem_n - - - "$b_conns"
    fi
}

# isolation CASE: a stalled peer's effect on a healthy one (docs/connected.md §3, "Peer
# isolation"; the e2e scenario ipoib-cm-isolation checks the same three stalls). Connected
# mode on softib hosts=3: A (ib0), the healthy peer B1 ($PEER) and C (B2, 10.0.0.3, softib2).
# A's connection to C is stalled one of three ways (CASE: forever, softib `rx_stop` on C's
# host: every SEND to any of C's RC QPs is answered with an RNR NAK; trickle, `rx_trickle 3000`:
# C's host takes one SEND a 3 s; gone, C's port down) while A sends C 60000-byte pings every
# 20 ms throughout. From 3 s on: iperf3 TCP A->B1 for
# BENCH_TIME s (isolation_tcp, receiver Mbit/s; 0 when nothing reached B1 or the run did not
# end within BENCH_TIME + 15 s), then 30 pings A->B1 100 ms apart, -W 5 (isolation_answered,
# isolation_rtt_max: the worst round trip of those answered). With BENCH_TIME 4 both fit the
# 10 s before our send watchdog gives up on C; the in-tree driver has no such limit.
# The stall is host-wide, not per QP (`rnr QPN forever`), because the in-tree driver asks for
# rnr_retry_count 0 (ipoib_cm.c: "RFC draft warns against retries"): C's first RNR NAK fails
# its send (IB_WC_RNR_RETRY_EXC_ERR), it tears that connection down and opens a new one for the
# next packet, on new QPs that a fault set on the old QPNs does not reach. The diag line counts
# those reconnects on A's port (softib0): sends failed by an RNR NAK, REQs sent.
ISO_C=10.0.0.3 ISO_FAULT=/sys/kernel/debug/softib/softib2/fault ISO_PORT=5300
iso_cnt() { cat /sys/class/infiniband/softib0/ports/1/hw_counters/$1 2>/dev/null || echo 0; }
iso_fault() { # CASE
    case $1 in
        forever) echo rx_stop > $ISO_FAULT ;;
        trickle) echo "rx_trickle 3000" > $ISO_FAULT ;;
        gone) echo "port_down 1" > $ISO_FAULT ;;
        *) return 1 ;;
    esac
}
# the flood to C: the background job is ping itself (exec, and ip netns exec execs it), so
# that SIGINT ends it with its summary
iso_flood() { exec /usr/sbin/ip netns exec A /usr/bin/ping -n -i 0.02 -W 1 -s 60000 -w 60 $ISO_C; }
iso_lift() { if [ "$1" = gone ]; then echo "port_up 1" > $ISO_FAULT; else echo clear > $ISO_FAULT; fi; }
isolation() {
    step $((BENCH_TIME + 20)) "isolation $MODE srq=$SRQ $1" || return 0
    check "$MODE srq=$SRQ $SLOT run $RUN: $1: A reaches C (60000-byte ping)" \
        wait_for 60 ns_exec A ping -n -c 1 -W 2 -s 60000 $ISO_C || return 0
    b_rx0=$(iso_cnt rnr_retry_exceeded) b_req0=$(iso_cnt cm_tx_req)
    check "$MODE srq=$SRQ $SLOT run $RUN: $1: C stalled" iso_fault $1 || { iso_lift $1; return 0; }
    iso_flood > /tmp/iso.flood 2>&1 &
    b_fp=$!
    ISO_PORT=$((ISO_PORT + 1))
    ns_exec B1 iperf3 -s -1 -D -p $ISO_PORT -I /tmp/iso.srv.pid >/dev/null 2>&1
    wait_for 10 iperf3_listening B1 $ISO_PORT
    # 3 s: the in-tree driver's send ring (128) fills at the flood's 50 a second in 2.6 s
    sleep 3
    b_out=$(timeout $((BENCH_TIME + 15)) /usr/sbin/ip netns exec A iperf3 -c "$PEER" -p $ISO_PORT -t "$BENCH_TIME" -f m 2>&1)
    b_mbit=$(echo "$b_out" | grep ' receiver$' | tail -n1 | awk '{ print $(NF-2) }')
    b_pout=$(ns_exec A ping -n -c 30 -i 0.1 -W 5 "$PEER" 2>&1)
    kill -INT $b_fp 2>/dev/null; wait $b_fp 2>/dev/null
    diag "bench-iso $MODE $SRQ $SLOT $RUN $1: A's port during the stall: rnr_retry_exceeded +$(( $(iso_cnt rnr_retry_exceeded) - b_rx0 )), cm_tx_req +$(( $(iso_cnt cm_tx_req) - b_req0 ))"
    kill "$(cat /tmp/iso.srv.pid 2>/dev/null)" 2>/dev/null
    b_got=$(echo "$b_pout" | grep -c ' time=')
    b_rtt=$(echo "$b_pout" | sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' | sort -n | tail -n 1)
    diag "bench-iso $MODE $SRQ $SLOT $RUN $1: B1 $b_got/30 answered, worst ${b_rtt:-none} ms; TCP ${b_mbit:-nothing} Mbit/s; C: $(grep transmitted /tmp/iso.flood)"
    if check "$MODE srq=$SRQ $SLOT run $RUN: $1: pings to B1 ran ($b_got/30 answered)" test -n "$b_got"; then
        rec isolation_answered 1 "$1" - "$b_got"
        [ -n "$b_rtt" ] && rec isolation_rtt_max 1 "$1" - "$b_rtt"
        rec isolation_tcp 1 "$1" - "${b_mbit:-0}"
    fi
    [ -n "$b_mbit" ] || diag "$b_out"
    check "$MODE srq=$SRQ $SLOT run $RUN: $1: stall lifted" iso_lift $1
    [ "$1" = gone ] && wait_carrier ib2 B2 60
    wait_for 60 ns_reach A $ISO_C 1 || diag "$SLOT: A does not reach C 60 s after the $1 stall was lifted"
}
