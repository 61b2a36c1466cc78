#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Connected mode ours <-> ours, graceful teardowns to slow peers do not hold anyone else
# (docs/connected.md §4 "The waits are parked steps"). Six softib hosts: A (icm0)
# has established connections to B, C, D and F (icm1-4), which then drop their DREPs
# (`drop_cm drep`), so each of A's graceful teardowns waits out its full WaitDrep bound.
#   1. A switches to datagram mode: its four active connections close gracefully at once.
#      Right then E (icm5, connected, paths resolved) pings A: E's REQ is accepted by A's CM
#      work while the four waits run. Its first ping waits in E's queue for that connection,
#      so its round trip is the setup time: below 2 s (the waits one after the other take
#      4 x the bound: 2.9 s with three 1 s waits when they slept in the interface's one
#      ordered CM work).
#   2. A, back in connected mode, reconnects to B, C, D, F and goes down (`ip link set
#      down`): the four closes again wait for DREPs that never come; the stop's 3 s bound
#      covers them because they run side by side: no "still draining at stop" line, nothing
#      left in debugfs.
# Both times rc_drep_wait_expired grows by 4 on A: the waits ran and expired.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=6
# load: ib_ipoib_cm ports=softib0:1,softib1:1,softib2:1,softib3:1,softib4:1,softib5:1 ifname=icm%d
# mem: 1024
# timeout: 300
# debug-timeout: 2400
# (debug: 1167 s of its 1200 under a load of 12, most of it six hosts coming up under KASAN)
# kernels: stock debug
. /e2e/lib.sh
plan 25

dmesg_mark slowpeers
check "icm0..icm5 exist" wait_for 30 sh -c 'for i in 0 1 2 3 4 5; do test -e /sys/class/net/icm$i || exit 1; done'
ns_create A B C D F E
i=0
for n in A B C D F E; do
    eval "addr_$n=\$(cat /sys/class/net/icm$i/address)"
    ns_move icm$i $n
    i=$((i + 1))
    ns_addr $n icm$((i - 1)) 10.0.7.$i/24
done
all_up() { has_carrier icm0 A && has_carrier icm1 B && has_carrier icm2 C && has_carrier icm3 D &&
    has_carrier icm4 F && has_carrier icm5 E; }
check "carrier on all six" wait_for 60 all_up
# static neighbours: A <-> each of the others (no ARP exchange under the slow peers' load;
# ARP goes over UD in connected mode)
neigh_all() {
    i=1
    for n in B C D F E; do
        i=$((i + 1))
        eval "a=\$addr_$n"
        /sbin/ip -n A neigh replace 10.0.7.$i lladdr "$a" nud permanent dev icm0 || return 1
        /sbin/ip -n $n neigh replace 10.0.7.1 lladdr "$addr_A" nud permanent dev icm$((i - 1)) || return 1
    done
}
check "static neighbours A <-> B, C, D, F, E" neigh_all
# warm-up in datagram mode: every path resolved both ways, no connection
check "warm-up pings A -> B, C, D, F, E in datagram mode" sh -c 'for i in 2 3 4 5 6; do /sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.2 -W 2 10.0.7.$i || exit 1; done'
setmode() { ns_exec "$1" sh -c "echo $3 > /sys/class/net/$2/mode"; }
check "all six -> connected mode" sh -c "$(for n in A:icm0 B:icm1 C:icm2 D:icm3 F:icm4 E:icm5; do
    echo "/sbin/ip netns exec ${n%%:*} sh -c 'echo connected > /sys/class/net/${n#*:}/mode' &&"; done) true"
connect_bcd() { for i in 2 3 4 5; do /sbin/ip netns exec A /usr/bin/ping -c 2 -i 0.2 -W 5 10.0.7.$i || return 1; done; }
check "A pings B, C, D, F over new connections" connect_bcd
check "A: four connections, all established" wait_for 10 cm_has icm0 4 ' state=established '
cm_show icm0
# B, C, D, F drop every DREP they send (A's DREQs are answered by nobody); ib_cm's DREQ resend
# (1 s response timeout + 2 x lifetime) is dropped as well
drop_dreps() { for h in 1 2 3 4; do echo 'drop_cm drep 8' > /sys/kernel/debug/softib/softib$h/fault || return 1; done; }
check "B, C, D, F drop their DREPs" drop_dreps

# ---- 1: four graceful closes to slow peers, a new connection from E meanwhile
snap m A:icm0
check "A -> datagram mode (closes its four active connections)" setmode A icm0 datagram
ns_exec E /usr/bin/ping -c 1 -W 15 10.0.7.1 > /tmp/pe.out 2>&1
re=$?
cm_show icm0	# the four closes parked in wait=drep (debugfs), E's connection beside them
diag "E: $(grep -E 'time=|transmitted' /tmp/pe.out | tr '\n' ' ')"
rtt=$(sed -n 's/.*time=\([0-9]*\).*/\1/p' /tmp/pe.out | head -n 1)
check "E's first ping to A answered" test "$re" = 0
check "E's connection was set up during the four waits: first ping's rtt ${rtt:-?} ms < 2000 ms" test "${rtt:-99999}" -lt 2000
check "A: E's connection established (passive)" wait_for 10 cm_has icm0 1 '^dir=passive .* state=established '
check "A: the four closes waited out their DREP wait (rc_drep_wait_expired +4)" wait_for 15 delta_ge m A:icm0 rc_drep_wait_expired 4
check_delta "A: no send was flushed (rc_tx_wait_expired)" m A:icm0 rc_tx_wait_expired -eq 0
cm_show icm0

# ---- 2: interface stop with three closes to slow peers
check "A -> connected mode" setmode A icm0 connected
check "A reconnects to B, C, D, F" connect_bcd
check "A: five connections established (B, C, D, F active, E passive)" wait_for 10 cm_has icm0 5 ' state=established '
check "B, C, D, F drop their DREPs again" drop_dreps
snap d A:icm0
dmesg_mark stop
check "ip link set icm0 down (A)" ns_ip A link set icm0 down
check "A: the four closes waited out their DREP wait (rc_drep_wait_expired +4)" delta_ge d A:icm0 rc_drep_wait_expired 4
check_rc "A: nothing left draining at stop (no 'still draining at stop' line)" 1 dmesg_has 'still draining at stop'
check "A: nothing left in debugfs" cm_has icm0 0 .
check "A comes back up" ns_ip A link set icm0 up
check "A pings E again" ns_reach A 10.0.7.6 3
cm_ctrs A icm0
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
