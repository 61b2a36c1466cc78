#!/bin/sh
# make demo: two simulated hosts on the softib fabric, each in its own network namespace,
# IPoIB between them on ib_ipoib_cm: the link, a ping, and an iperf3 run.
# load: softib hosts=2
# load: ib_ipoib_cm ports=softib0:1,softib1:1
# mem: 1024
# timeout: 150
# kernels: stock
. /e2e/lib.sh
plan 5
say() { echo "demo: $*"; }

say "softib fabric: $(ib_devices | tr '\n' ' ')"
for d in $(ib_devices); do
    say "  $d port 1: $(cat /sys/class/infiniband/$d/ports/1/state), LID $(cat /sys/class/infiniband/$d/ports/1/lid)"
done
two_netdevs() { [ "$(ls /sys/class/net | grep -c '^ib[0-9]')" -ge 2 ]; }
check "ib_ipoib_cm created a netdev per port" wait_for 20 two_netdevs
ns_create hostA hostB
ns_move ib0 hostA && ns_move ib1 hostB
ns_addr hostA ib0 192.168.77.1/24 && ns_addr hostB ib1 192.168.77.2/24
both_carriers() { wait_carrier ib0 hostA 60 && wait_carrier ib1 hostB 60; }
check "carrier on both hosts (broadcast group joined)" both_carriers
say "host A:"; ip -n hostA -d link show ib0 | sed 's/^/demo:   /'
say "host B:"; ip -n hostB -d link show ib1 | sed 's/^/demo:   /'
check "ping hostA -> hostB" ns_ping hostA 192.168.77.2 3
ns_exec hostA ping -c 3 192.168.77.2 | sed 's/^/demo:   /'
ns_exec hostB iperf3 -s -1 -D >/dev/null 2>&1
sleep 1
out=$(ns_exec hostA iperf3 -c 192.168.77.2 -t 5 -f m 2>&1)
echo "$out" | sed 's/^/demo:   /'
rate=$(echo "$out" | awk '/receiver/ {print $(NF-2), $(NF-1)}')
check "iperf3 TCP hostA -> hostB ran" test -n "$rate"
say "throughput over softib (TCG VM, not hardware): $rate"
check "kernel log clean" dmesg_clean
