#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Side-by-side throughput in one VM: ib_ipoib_cm datagram mode (icm0 <-> icm1 on softib0/1)
# against the in-tree ib_ipoib datagram mode (ib2 <-> ib3 on softib2/3; its netdevs on
# softib0/1 stay down), iperf3 TCP, alternating runs. The figures are printed as diagnostics;
# the checks only require that every run moved data.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=4
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1536
# timeout: 400
# tier: long
. /e2e/lib.sh
plan 7

check "icm0 icm1 ib2 ib3 exist" wait_for 30 sh -c 'for d in icm0 icm1 ib2 ib3; do test -e /sys/class/net/$d || exit 1; done'
ip link set ib0 down 2>/dev/null
ip link set ib1 down 2>/dev/null
ns_create A B C D
ns_move icm0 A && ns_move icm1 B && ns_move ib2 C && ns_move ib3 D
ns_addr A icm0 10.0.0.1/24 && ns_addr B icm1 10.0.0.2/24
ns_addr C ib2 10.0.1.1/24 && ns_addr D ib3 10.0.1.2/24
carriers() { wait_carrier icm0 A 60 && wait_carrier icm1 B 60 && wait_carrier ib2 C 60 && wait_carrier ib3 D 60; }
check "carrier on all four" carriers
check "ours: ping" ns_reach A 10.0.0.2 3
check "in-tree: ping" ns_reach C 10.0.1.2 3

run_iperf() { # NS_CLIENT NS_SERVER ADDR PORT -> Mbit/s of the receiver line ("none" if the run failed)
    iperf3_server "$2" "$4" -1 || { echo none; return; }
    _m=$(ns_exec "$1" iperf3 -c "$3" -p "$4" -t 5 -f m 2>&1 | awk '/receiver/ {print $(NF-2); exit}')
    echo "${_m:-none}"
}
ours=""; theirs=""
for i in 1 2; do
    ours="$ours $(run_iperf A B 10.0.0.2 520$i)"
    theirs="$theirs $(run_iperf C D 10.0.1.2 521$i)"
done
diag "iperf3 TCP Mbit/s (5 s each, alternating): ib_ipoib_cm:$ours | in-tree ib_ipoib:$theirs"
# all_moved "V1 V2": exactly 2 runs, each a number > 0 (a failed run is "none")
all_moved() {
    _n=0
    for _v in $1; do
        awk -v v="$_v" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/ && v > 0) }' || return 1
        _n=$((_n + 1))
    done
    [ $_n = 2 ]
}
check "ours moved data in every run" all_moved "$ours"
check "in-tree moved data in every run" all_moved "$theirs"
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S icm0 | grep -v ': 0$')"
ns_delete_all
exit $(tap_status)
