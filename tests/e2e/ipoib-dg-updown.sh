#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode, `ip link set down/up` robustness: 20 idle cycles, 20 cycles under
# traffic (UDP flood into the toggled port, ping out of it), 3 cycles each while a PathRecord
# query is in flight (softib drops it), then ping works, the error counters stay 0 and the
# kernel log is clean. Also: ndo_stop reaps the send ring, so no skb or AH reference is held
# while the interface is down (seen as the PD's user count: the QP only).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 200
# tier: full
. /e2e/lib.sh
plan 23

fault=/sys/kernel/debug/softib/softib0/fault
paths=/sys/kernel/debug/ib_ipoib_cm/ib0/paths
check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24
carriers() { wait_carrier ib0 A 60 && wait_carrier ib1 B 60; }
check "carrier on both" carriers
check "ping before" ns_reach A 10.0.0.2 3

# The PD of ib0 (softib0) is used by the UD QP, every live AH (groups, paths, in-flight sends).
pd_users() { rdma resource show pd dev softib0 | grep 'ib_ipoib_cm' | grep -o 'users [0-9]*' | cut -d' ' -f2; }
cycle() { # N: N down/up cycles of ib0 in A
    _n=0
    while [ $_n -lt "$1" ]; do
        ip -n A link set ib0 down || return 1
        ip -n A link set ib0 up || return 1
        _n=$((_n + 1))
    done
}

check "20 idle down/up cycles" cycle 20
check "carrier back after idle cycles" wait_carrier ib0 A 60
check "ping after idle cycles" ns_reach A 10.0.0.2 3

# Traffic in flight: UDP from B into ib0 (its receive ring fills while NAPI is off) and a fast
# ping out of ib0 (sends posted just before each ndo_stop).
check "iperf3 server in A listening" iperf3_server A 5201
# (/sbin/ip, not the ip function: $! must be the tool's pid, which ip execs)
/sbin/ip netns exec B iperf3 -u -b 50M -t 40 -c 10.0.0.1 >/tmp/udp.out 2>&1 &
udp=$!
/sbin/ip netns exec A /usr/bin/ping -q -i 0.005 -w 40 10.0.0.2 >/tmp/ping.out 2>&1 &
png=$!
# the traffic is there before the cycles start: the flood lands in ib0's receive ring and the
# fast ping goes out of it (softib's per-transport counters, softib/README.md)
snap pre ib:softib0 ib:softib1
flowing() { delta_ge pre ib:softib0 ud_rx_bytes 1000000 && delta_ge pre ib:softib0 ud_tx_packets 50; }
check "traffic flows both ways before the cycles (> 1 MB into ib0, > 50 sends out)" wait_for 30 flowing
snap cyc ib:softib0 ib:softib1
check "20 down/up cycles under traffic" cycle 20
# ... and during them: B kept offering the flood, and some of it, and of the ping, got through
check_delta "during the cycles B kept sending (> 1 MB over UD from softib1)" cyc ib:softib1 ud_tx_bytes -gt 1000000
check_delta "during the cycles ib0 received some of it" cyc ib:softib0 ud_rx_packets -gt 0
check_delta "during the cycles ib0 sent (the ping)" cyc ib:softib0 ud_tx_packets -gt 0
check "carrier back after cycles under traffic" wait_carrier ib0 A 60
kill -INT $udp $png 2>/dev/null; wait $udp $png 2>/dev/null
# ARP and the path are resolved again behind the flood's backlog: allow some seconds.
t0=$(cut -d. -f1 /proc/uptime)
check "ping after cycles under traffic (within 20 s)" wait_for 20 ns_reach A 10.0.0.2 1
diag "first ping answered after $(($(cut -d. -f1 /proc/uptime) - t0)) s; paths: $(cat $paths)"

# Toggle while a PathRecord query is in flight: softib drops the query, so it is still pending
# (1 s timeout) when ndo_stop cancels it. The drop is armed (for every path query) while ib0
# is down, since ndo_stop flushes the path cache and any unicast after up starts a query.
query_cycle() {
    for _q in 1 2 3; do
        ip -n A link set ib0 down || return 1
        echo "drop_sa path 1000" > $fault || return 1
        ip -n A link set ib0 up && wait_carrier ib0 A 60 || return 1
        /sbin/ip netns exec A /usr/bin/ping -c 1 -W 1 10.0.0.2 >/dev/null 2>&1 &
        wait_for 5 grep -q querying $paths || { echo "no query in flight (cycle $_q)"; cat $paths; return 1; }
        ip -n A link set ib0 down && ip -n A link set ib0 up || return 1
        wait $!
    done
    echo clear > $fault
    wait_carrier ib0 A 60
}
check "3 down/up cycles with a path query in flight" query_cycle
check "ping after toggling during path queries" ns_reach A 10.0.0.2 3

# ndo_stop must reap the send ring. softib holds the next 2 UD sends of softib0 2 s each, so
# they are still posted when ib0 goes down; their completions arrive after NAPI is off. Once
# down, nothing may keep an AH: the PD's only user is the UD QP.
diag "PD users while up: $(pd_users)"
echo "delay_ud 2 2000" > $fault
/sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.05 -W 1 10.0.0.2 >/dev/null 2>&1 &
png=$!
# softib took the first send (the count went 2 -> 1) and holds it 2 s; the second waits behind it
check "a send is held by softib (delay_ud 2 -> 1)" wait_for 10 grep -qx 'delay_ud 1 2000' $fault
# The hold was seen (count 2 -> 1: the first send taken and held 2 s, the second behind it)
# at most one 0.2 s poll after it began, and ndo_stop runs right after: a send is in flight.
cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }   # uptime in centiseconds
t_held=$(cs)
ip -n A link set ib0 down
diag "ip link set down returned $(( $(cs) - t_held )) cs after the hold was seen; fault now: $(cat $fault)"
# Past both holds: softib holds the two sends one after the other (the QP stalls behind the
# first), and the first began at or before t_held, so by t_held + 5 s the second's 2 s ended at
# least 1 s ago and a late completion would have arrived. ndo_stop above may already have used
# part of that time; only the rest is waited.
while [ $(( $(cs) - t_held )) -lt 500 ]; do sleep 0.2; done
# Users left while down: the UD QP, plus connected mode's SRQ when softib offers SRQs (it
# lives from bring-up to teardown, like the QP); no AH.
srq_users=$(rdma resource show srq dev softib0 2>/dev/null | grep -c 'ib_ipoib_cm')
diag "SRQs of ours: $srq_users"
check_output "down: no AH held by the send ring (PD users: the UD QP + our SRQ)" "^$((1 + srq_users))\$" pd_users
echo clear > $fault
wait $png
ip -n A link set ib0 up
check "carrier back" wait_carrier ib0 A 60
check "ping at the end" ns_reach A 10.0.0.2 3

check_output "no send/receive completion errors" '^0 0$' sh -c "echo \$(/sbin/ip netns exec A ethtool -S ib0 | sed -n 's/^ *\(tx_wc_errors\|rx_wc_errors\): //p')"
check_output "tx_timeouts 0, rx_post_errors 0" '^0 0$' sh -c "echo \$(/sbin/ip netns exec A ethtool -S ib0 | sed -n 's/^ *\(tx_timeouts\|rx_post_errors\): //p')"
check "kernel log clean" dmesg_clean
diag "udp client: $(tail -n 4 /tmp/udp.out)"
diag "ping: $(tail -n 2 /tmp/ping.out)"
diag "$(ns_exec A ethtool -S ib0 | grep -v ': 0$')"
ns_delete_all
exit $(tap_status)
