#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib's host limit and what a host costs: hosts= one past the limit is refused (-EINVAL and
# one line, which names the limit); then at hosts=16 and at the limit, softib alone and then
# with the in-tree ib_ipoib on every host (connected mode, SRQ, interfaces up), the memory each
# step takes (MemAvailable and Slab deltas after dropping caches, per host, as diag lines: the
# numbers softib/README.md "Scale" quotes), every device and netdev present, every carrier up,
# and the memory back near its baseline after both modules are unloaded.
# load: ib_core
# load: ib_cm
# load: softib hosts=1
# load: ib_ipoib
# mem: 4096
# timeout: 900
# kernels: stock
# tier: long
# (not on the debug kernel: KASAN's shadow and slub_debug change what a host costs, and the
# measurement is what this scenario is for; softib-hub runs the limit on the debug kernel)
. /e2e/lib.sh
plan 14

ko=/e2e/modules/softib.ko
ipoib_ko=$(awk '$1 == "ib_ipoib" { print $2 }' /e2e/plan)
check "rmmod the harness-loaded ib_ipoib and softib" sh -c 'rmmod ib_ipoib && rmmod softib'

dmesg_mark limit
insmod $ko hosts=100000 2>/dev/null && rmmod softib
max=$(dmesg_since_mark | sed -n 's/.*softib: hosts=100000 out of range 1\.\.\([0-9]*\).*/\1/p' | tail -n1)
check "hosts=100000 refused with one line naming the limit" test -n "$max"
max=${max:-16}
dmesg_mark over
check_fail "hosts=$((max + 1)) refused with -EINVAL" 'Invalid argument' insmod $ko hosts=$((max + 1))
# busybox insmod tries finit_module and then init_module: one line per attempt
check "... and the 'out of range' line" dmesg_has "softib: hosts=$((max + 1)) out of range 1..$max\$"
diag "softib host limit: $max"

# memory, KiB: MemAvailable and Slab, after the page cache and reclaimable slabs are dropped
mem() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1
    awk '/^MemAvailable:/ { a = $2 } /^Slab:/ { s = $2 } END { print a, s }' /proc/meminfo; }
n_ib() { ls /sys/class/infiniband 2>/dev/null | grep -c '^softib'; }
n_active() { grep -l ACTIVE /sys/class/infiniband/softib*/ports/1/state 2>/dev/null | wc -l; }
n_net() { ipoib_netdevs | wc -l; }
n_carrier() { _c=0; for d in $(ipoib_netdevs); do has_carrier $d && _c=$((_c + 1)); done; echo $_c; }
all_up() { for d in $(ipoib_netdevs); do
    echo connected > /sys/class/net/$d/mode && /sbin/ip link set $d up || return 1; done; }

measure() { # N: one full cycle at hosts=N
    _n=$1
    set -- $(mem); a0=$1 s0=$2
    insmod $ko hosts=$_n time_scale=100 || return 1
    wait_for 300 sh -c "test \$(ls /sys/class/infiniband | grep -c softib) -eq $_n" || return 1
    wait_for 120 sh -c "test \$(grep -l ACTIVE /sys/class/infiniband/softib*/ports/1/state | wc -l) -eq $_n" || return 1
    sleep 2
    set -- $(mem); a1=$1 s1=$2
    insmod $ipoib_ko || return 1
    wait_for 300 sh -c "test \$(ls -d /sys/class/net/ib* | wc -l) -eq $_n" || return 1
    all_up || return 1
    wait_for 300 sh -c "for d in \$(ls /sys/class/net | grep '^ib'); do /sbin/ip -o link show \$d | grep -q LOWER_UP || exit 1; done" || return 1
    sleep 3
    set -- $(mem); a2=$1 s2=$2
    echo "hosts=$_n softib alone: MemAvailable -$(( (a0 - a1) / _n )) KiB/host, Slab +$(( (s1 - s0) / _n )) KiB/host (total -$(( (a0 - a1) / 1024 )) MiB)" >> /tmp/mem
    echo "hosts=$_n + ib_ipoib connected, up: MemAvailable -$(( (a1 - a2) / _n )) KiB/host, Slab +$(( (s2 - s1) / _n )) KiB/host (total -$(( (a1 - a2) / 1024 )) MiB); MemAvailable left $(( a2 / 1024 )) MiB" >> /tmp/mem
    echo "$_n $(n_ib) $(n_active) $(n_net) $(n_carrier)" > /tmp/counts
    rmmod ib_ipoib && rmmod softib || return 1
    set -- $(mem); a3=$1
    echo "hosts=$_n after rmmod: MemAvailable $(( (a3 - a0) / 1024 )) MiB against the baseline" >> /tmp/mem
    echo "$a0 $a3" > /tmp/back
}

for n in 16 $max; do
    dmesg_mark m$n
    check "hosts=$n: load, connected mode, carrier, unload" measure $n
    diag "$(cat /tmp/mem 2>/dev/null)"
    read -r _n d a nd c < /tmp/counts 2>/dev/null
    check "hosts=$n: $n devices, $n ports ACTIVE" test "${d:-0}" -eq $n -a "${a:-0}" -eq $n
    check "hosts=$n: $n ipoib netdevs, all with carrier" test "${nd:-0}" -eq $n -a "${c:-0}" -eq $n
    read -r b0 b3 < /tmp/back 2>/dev/null
    # within 32 MiB: ib_core's and the page allocator's caches do not all shrink back
    check "hosts=$n: memory back near its baseline after rmmod" test $(( ${b0:-0} - ${b3:-0} )) -lt 32768
    check "hosts=$n: kernel log clean" dmesg_clean
    rm -f /tmp/counts /tmp/back /tmp/mem
done
exit $(tap_status)
