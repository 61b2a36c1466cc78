#!/bin/sh
# ib_ipoib_cm datagram mode, port events: CLIENT_REREGISTER and port down/up (softib fault
# knobs) flush the path cache; also module parameter clamping (send/recv_queue_size) and rejoin every group; carrier follows the broadcast join,
# and unicast/multicast traffic works again afterwards.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm send_queue_size=100 recv_queue_size=300
# mem: 1024
# timeout: 240
. /e2e/lib.sh
plan 13

fault=/sys/kernel/debug/softib/softib0/fault
check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check "softib fault knob present" test -w $fault
check "queue sizes clamped with a log line" sh -c "dmesg | grep -q 'send_queue_size=100 adjusted to 128' && dmesg | grep -q 'recv_queue_size=300 adjusted to 512'"
check_output "ethtool -g shows the clamped rings" 'RX:[[:space:]]+512' ethtool -g ib0
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24
ip -n A addr add fd00::1/64 dev ib0 nodad
ip -n B addr add fd00::2/64 dev ib1 nodad
carriers() { wait_carrier ib0 A 60 && wait_carrier ib1 B 60; }
check "carrier on both" carriers
check "ping before events" ns_ping A 10.0.0.2 3

echo "reregister 1" > $fault
check "flush counted after CLIENT_REREGISTER" wait_for 20 sh -c "/sbin/ip netns exec A ethtool -S ib0 | grep -Eq 'port_event_flushes: [1-9]'"
check "carrier back after rejoin" wait_carrier ib0 A 60
check "ping after reregister" ns_ping A 10.0.0.2 3

echo "port_down 1" > $fault
check "carrier off while the port is down" wait_for 20 sh -c 'test "$(/sbin/ip netns exec A cat /sys/class/net/ib0/carrier 2>/dev/null)" = 0'
echo "port_up 1" > $fault
check "carrier on after port up" wait_carrier ib0 A 60
check "ping and ping6 after port up" sh -c '/sbin/ip netns exec A /usr/bin/ping -c 3 -i 0.2 -W 2 10.0.0.2 && /sbin/ip netns exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd00::2'
check "kernel log clean" dmesg_clean
diag "$(ns_exec A ethtool -S ib0 | grep -v ': 0$')"
diag "$(dmesg | grep -i -E 'ib_ipoib_cm' | tail -n 12)"
ns_delete_all
exit $(tap_status)
