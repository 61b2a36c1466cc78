#!/bin/sh
# Side-by-side measurement (not a test: scripts/bench runs it, make test does not): the in-tree
# ib_ipoib and ib_ipoib_cm, both in datagram mode, on the SAME two softib ports (hosts in
# namespaces A and B), loaded one at a time and alternating run by run. Each run loads the
# driver, brings both netdevs up (carrier, one ping), measures memory against the state
# before the load, runs iperf3 TCP A->B and B->A, and unloads the driver again.
# Printed as TAP diagnostics ("# bench ..."); the checks only require that each step worked.
# scripts/bench rewrites BENCH_RUNS/BENCH_TIME and the timeout below.
# load: ib_core
# load: ib_cm
# load: softib hosts=2
# load: ib_ipoib
# load: ib_ipoib_cm ports=nonexistent0
# mem: 1024
# timeout: 600
# tier: full
. /e2e/lib.sh
BENCH_RUNS=5
BENCH_TIME=5

ours=/e2e/modules/ib_ipoib_cm.ko
intree=$(find /lib/modules/$(uname -r) -name 'ib_ipoib.ko*' | head -n1)
modname() { case $1 in ours) echo ib_ipoib_cm ;; intree) echo ib_ipoib ;; esac; }
ko() { case $1 in ours) echo $ours ;; intree) echo $intree ;; esac; }

# Start from nothing bound: the harness loaded both (ours bound no port).
check "unload the harness-loaded drivers" sh -c 'rmmod ib_ipoib && rmmod ib_ipoib_cm'
ns_create A B
ns_exec B iperf3 -s -D >/dev/null 2>&1

# meminfo KEY: kB
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
# slab_bytes: "cache bytes" per line (num_objs x objsize) from /proc/slabinfo
slab_bytes() { awk 'NR > 2 { print $1, $3 * $4 }' /proc/slabinfo | sort; }
up() { # DRIVER: load, both netdevs into A/B, addresses, carrier, ping
    insmod "$(ko $1)" || return 1
    wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1' || return 1
    ns_move ib0 A && ns_move ib1 B &&
        ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24 &&
        wait_carrier ib0 A 60 && wait_carrier ib1 B 60 &&
        ns_ping A 10.0.0.2 1 >/dev/null
}
down() { # DRIVER: unload (its netdevs go with it)
    rmmod "$(modname $1)" && wait_for 10 sh -c '! /sbin/ip -n A link show ib0 && ! /sbin/ip -n B link show ib1'
}
# tput ARGS: receiver Mbit/s of one iperf3 TCP run from A to 10.0.0.2 (-R: B to A)
tput() { ns_exec A iperf3 -c 10.0.0.2 -t $BENCH_TIME -f m "$@" 2>&1 | awk '/receiver/ { print $(NF-2); exit }'; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

res=/tmp/bench; : > $res
i=1
while [ $i -le $BENCH_RUNS ]; do
    for d in intree ours; do
        settle
        u0=$(( $(meminfo MemTotal) - $(meminfo MemFree) )); s0=$(meminfo Slab)
        [ $i = 1 ] && slab_bytes > /tmp/slab0
        check "run $i $d: load and bring up" up $d || { down $d; continue; }
        settle
        u1=$(( $(meminfo MemTotal) - $(meminfo MemFree) )); s1=$(meminfo Slab)
        core=$(cat /sys/module/$(modname $d)/coresize)
        if [ $i = 1 ]; then
            slab_bytes > /tmp/slab1
            diag "bench slab $d: caches grown most by the bring-up (KiB): $(awk 'NR == FNR { a[$1] = $2; next }
                { d = ($2 - a[$1]) / 1024; if (d >= 4) printf "%s %+.0f\n", $1, d }' /tmp/slab0 /tmp/slab1 |
                sort -k2 -n -r | head -n 6 | tr '\n' ' ')"
        fi
        ab=$(tput); ba=$(tput -R)
        check "run $i $d: iperf3 moved data both ways ($ab / $ba Mbit/s)" awk -v a="$ab" -v b="$ba" 'BEGIN { exit !(a > 0 && b > 0) }'
        echo "$i $d $ab $ba $((u1 - u0)) $((s1 - s0)) $core" >> $res
        diag "bench run $i $d: A->B $ab Mbit/s, B->A $ba Mbit/s, memory +$((u1 - u0)) KiB (slab +$((s1 - s0)) KiB), module core $core B"
        check "run $i $d: unload" down $d
    done
    i=$((i + 1))
done

col() { awk -v d="$1" -v c="$2" '$2 == d { printf "%s ", $c }' $res; }
for d in intree ours; do
    diag "bench $d A->B Mbit/s: $(col $d 3)| B->A: $(col $d 4)"
done
ab_i=$(col intree 3 | median); ab_o=$(col ours 3 | median)
ba_i=$(col intree 4 | median); ba_o=$(col ours 4 | median)
mem_i=$(col intree 5 | median); mem_o=$(col ours 5 | median)
slab_i=$(col intree 6 | median); slab_o=$(col ours 6 | median)
core_i=$(col intree 7 | median); core_o=$(col ours 7 | median)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
diag "bench median A->B: in-tree $ab_i, ours $ab_o Mbit/s, ours/in-tree $(ratio $ab_o $ab_i)"
diag "bench median B->A: in-tree $ba_i, ours $ba_o Mbit/s, ours/in-tree $(ratio $ba_o $ba_i)"
diag "bench median memory after bring-up (2 netdevs): in-tree +$mem_i KiB (slab +$slab_i), ours +$mem_o KiB (slab +$slab_o)"
diag "bench module core size: in-tree ib_ipoib $core_i B, ours ib_ipoib_cm $core_o B"
check "kernel log clean" dmesg_clean
ns_delete_all
done_testing
exit $(tap_status)
