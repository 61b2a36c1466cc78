#!/bin/sh
# rmmod softib while in-tree ipoib carries traffic (datagram on one pair, connected mode
# 60000-byte pings on the other): the devices unregister under load, ipoib's netdevs go
# away, and the kernel log stays clean.
# load: ib_core
# load: ib_cm
# load: softib hosts=4 time_scale=100
# load: ib_ipoib
# mem: 1024
# timeout: 240
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 6

wait_for 30 sh -c 'for i in 0 1 2 3; do test -e /sys/class/net/ib$i || exit 1; done'
echo connected > /sys/class/net/ib2/mode; echo connected > /sys/class/net/ib3/mode
ns_create A B C D
ns_move ib0 A; ns_move ib1 B; ns_move ib2 C; ns_move ib3 D
ns_addr A ib0 10.0.5.1/24; ns_addr B ib1 10.0.5.2/24
ns_addr C ib2 10.0.6.1/24; ns_addr D ib3 10.0.6.2/24
ip -n C link set ib2 mtu 65520; ip -n D link set ib3 mtu 65520
for p in "ib0 A" "ib1 B" "ib2 C" "ib3 D"; do set -- $p; wait_carrier $1 $2 60; done
check "datagram ping" ns_ping A 10.0.5.2 2
check "connected ping -s 60000" ns_ping C 10.0.6.2 2 -s 60000
ip netns exec A /usr/bin/ping -q -i 0.01 -c 100000 10.0.5.2 >/dev/null 2>&1 &
ip netns exec C /usr/bin/ping -q -i 0.01 -s 60000 -c 100000 10.0.6.2 >/dev/null 2>&1 &
ip netns exec B /usr/bin/ping -q -i 0.01 -c 100000 10.0.5.1 >/dev/null 2>&1 &
sleep 2
check "rmmod softib under traffic" rmmod softib
check "no ib_device left" test -z "$(ib_devices)"
check "ipoib netdevs gone" wait_for 10 sh -c 'test -z "$(/sbin/ip -all netns exec /sbin/ip -o link show type ipoib 2>/dev/null | grep -v "^netns")"'
kill %1 %2 %3 2>/dev/null
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
