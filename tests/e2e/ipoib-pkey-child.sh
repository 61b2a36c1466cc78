#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm P_Key child interfaces, ours <-> ours over softib with pkeys=0x8001,0x8002
# (our module only: no in-tree ib_ipoib, so `ip link add ... type ipoib` is ours). Children
# through sysfs create_child (ib0.8001, ib1.8001) and `ip link add ... type ipoib pkey 0x8002`
# (ib0.8002, ib1.8002); sysfs/netlink attributes; v4/v6 ping over each pair incl. the full UD
# MTU with DF (host A in namespace A, host B in B and C); isolation (0x8001 cannot reach the
# peer's 0x8002 child, not even through a static neighbour: softib drops it as a P_Key
# violation); children whose P_Key (0x8003) is not in the table stay without carrier until
# softib adds it (IB_EVENT_PKEY_CHANGE), then ping; bad input rejected with the errno, one log
# line and nothing changed; deletion through delete_child, ip link del and namespace deletion
# (children come back); rmmod with children left; rmmod while loops create/delete children
# through sysfs and netlink.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 pkeys=0x8001,0x8002
# load: ib_ipoib_cm
# mem: 1024
# timeout: 300
# tier: full
. /e2e/lib.sh
plan 81

cm_lines() { dmesg_since_mark | grep -c 'ib_ipoib_cm'; }
links() { ls /sys/class/net | tr '\n' ' '; }
# reject DESC ERRNO-TEXT cmd...: cmd fails with that error text, exactly one ib_ipoib_cm
# log line, and the set of netdevs is unchanged
reject() {
    _d=$1 _e=$2; shift 2
    _before=$(links)
    dmesg_mark reject
    _out=$("$@" 2>&1); _rc=$?
    sleep 0.3
    _n=$(cm_lines) _after=$(links)
    if [ $_rc -ne 0 ] && echo "$_out" | grep -q "$_e" && [ "$_n" = 1 ] && [ "$_before" = "$_after" ]; then
        ok "$_d"
    else
        not_ok "$_d"; diag "rc=$_rc output: $_out"; diag "log lines: $_n"; diag "$(dmesg_since_mark)"
        [ "$_before" = "$_after" ] || diag "netdevs before: $_before after: $_after"
    fi
}
sysw() { sh -c "echo $2 > $1"; }
cnt() { hwc "$1" "$2"; }
ll() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/infiniband \([0-9a-f:]*\) .*/\1/p'; }

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
check_rc "rtnl kind ipoib is ours (no 'held by another module' line)" 1 dmesg_has 'rtnl kind ipoib is held'
check "parent has create_child and delete_child" test -e /sys/class/net/ib0/create_child -a -e /sys/class/net/ib0/delete_child

# ---- creation: sysfs on one P_Key, netlink on the other, on both hosts
dmesg_mark create
check "create_child 0x8001 on ib0" sysw /sys/class/net/ib0/create_child 0x8001
check "create_child 32769 (decimal 0x8001) on ib1" sysw /sys/class/net/ib1/create_child 32769
check "ip link add ib0.8002 type ipoib pkey 0x8002" ip link add link ib0 name ib0.8002 type ipoib pkey 0x8002
check "ip link add ib1.8002 type ipoib pkey 0x8002 mode datagram umcast 0" ip link add link ib1 name ib1.8002 type ipoib pkey 0x8002 mode datagram umcast 0
check_output "four 'created child' log lines, one per child" '^4$' sh -c "dmesg | sed -n '/$_dm_mark/,\$p' | grep -c 'created child'"
check_output "ib0.8001 pkey 0x8001" '^0x8001$' cat /sys/class/net/ib0.8001/pkey
check_output "ib1.8001 pkey 0x8001" '^0x8001$' cat /sys/class/net/ib1.8001/pkey
check_output "ib0.8001 parent ib0" '^ib0$' cat /sys/class/net/ib0.8001/parent
check_output "ib0.8002 parent ib0, mode datagram, umcast 0" '^ib0 datagram 0$' sh -c 'echo $(cat /sys/class/net/ib0.8002/parent /sys/class/net/ib0.8002/mode /sys/class/net/ib0.8002/umcast)'
check_output "child broadcast address carries its P_Key" '^00:ff:ff:ff:ff:12:40:1b:80:02:00:00:00:00:00:00:ff:ff:ff:ff$' cat /sys/class/net/ib0.8002/broadcast
check_output "ip -d: kind ipoib with pkey and mode" 'ipoib pkey 0x8002 mode datagram' ip -d link show ib0.8002
# ndo_get_iflink: `ip link` names a child's parent (CHILD@PARENT), a port's own netdev none
check_output "ip link: ib0.8001@ib0 (sysfs child)" '^[0-9]+: ib0\.8001@ib0: ' ip -o link show ib0.8001
check_output "ip link: ib1.8002@ib1 (netlink child)" '^[0-9]+: ib1\.8002@ib1: ' ip -o link show ib1.8002
check_output "ip link: ib0 has no parent" '^[0-9]+: ib0: ' ip -o link show ib0
check_output "ip -d: a sysfs child is kind ipoib too" 'ipoib pkey 0x8001 mode datagram' ip -d link show ib0.8001
check_output "ethtool -i: child driver ib_ipoib_cm" 'driver: ib_ipoib_cm' ethtool -i ib0.8001
check_rc "a child has no create_child of its own" 1 test -e /sys/class/net/ib0.8001/create_child
check "changelink umcast 1" ip link set ib0.8002 type ipoib umcast 1
check_output "umcast reads 1 after changelink" '^1$' cat /sys/class/net/ib0.8002/umcast
ip link set ib0.8002 type ipoib umcast 0

# ---- bad input: errno, one log line, nothing changed
reject "create_child 0 -> EINVAL" 'Invalid argument' sysw /sys/class/net/ib0/create_child 0
reject "create_child bogus -> EINVAL" 'Invalid argument' sysw /sys/class/net/ib0/create_child bogus
reject "create_child 0x10000 -> EINVAL" 'Invalid argument' sysw /sys/class/net/ib0/create_child 0x10000
reject "create_child 0x8000 -> EINVAL" 'Invalid argument' sysw /sys/class/net/ib0/create_child 0x8000
reject "create_child 0x8001 again -> ENOTUNIQ" 'not unique' sysw /sys/class/net/ib0/create_child 0x8001
reject "create_child 1 (= 0x8001 full member) -> ENOTUNIQ" 'not unique' sysw /sys/class/net/ib0/create_child 1
reject "create_child 0xffff (the parent's) -> ENOTUNIQ" 'not unique' sysw /sys/class/net/ib0/create_child 0xffff
reject "delete_child 0x8003 (none) -> ENODEV" 'No such device' sysw /sys/class/net/ib0/delete_child 0x8003
reject "delete_child 0x8002 (an ip-link child) -> ENODEV" 'No such device' sysw /sys/class/net/ib0/delete_child 0x8002
reject "delete_child junk -> EINVAL" 'Invalid argument' sysw /sys/class/net/ib0/delete_child 12x
reject "ip link add type ipoib pkey 0 -> EINVAL" 'Invalid argument' ip link add link ib0 name ib0.bad type ipoib pkey 0
reject "ip link add type ipoib pkey 0x8000 -> EINVAL" 'Invalid argument' ip link add link ib0 name ib0.bad type ipoib pkey 0x8000
reject "ip link add type ipoib umcast 5 -> EINVAL" 'Invalid argument' ip link add link ib0 name ib0.bad type ipoib pkey 0x8001 umcast 5
reject "ip link add on a child -> EINVAL" 'Invalid argument' ip link add link ib0.8001 name ib0.bad type ipoib pkey 0x8002
ip link add link ib0 name ib0.8005 type ipoib pkey 0x8004
reject "create_child 0x8005 while ib0.8005 is another child's name -> EEXIST" 'File exists' sysw /sys/class/net/ib0/create_child 0x8005
ip link del ib0.8005

# ---- an ip-link child without pkey takes the parent's; a P_Key not in the table: no carrier
check "ip link add without pkey" ip link add link ib0 name ib0.dflt type ipoib
check_output "it has the parent's P_Key 0xffff" '^0xffff$' cat /sys/class/net/ib0.dflt/pkey
check "ip link del ib0.dflt" ip link del ib0.dflt
check "create_child 0x8003 (not in the P_Key table)" sysw /sys/class/net/ib0/create_child 0x8003
check "its bring-up says the P_Key is missing" dmesg_has 'ib0.8003: .*P_Key 0x8003 \(not in the port.s P_Key table'
check "create_child 0x8003 on ib1 too" sysw /sys/class/net/ib1/create_child 0x8003

# ---- traffic over each P_Key, hosts in namespaces
ns_create A B C
for d in ib0 ib0.8001 ib0.8002 ib0.8003; do ns_move $d A; done
# host B's 0x8002 child in a namespace of its own (C): with ib1.8001 next to it, B would
# answer ARP for it over 0x8001 (Linux's weak host model) and hide the P_Key isolation
for d in ib1 ib1.8001; do ns_move $d B; done
ns_move ib1.8002 C && ns_move ib1.8003 C
ns_addr A ib0.8001 10.0.1.1/24 && ns_addr B ib1.8001 10.0.1.2/24
ns_addr A ib0.8002 10.0.2.1/24 && ns_addr C ib1.8002 10.0.2.2/24
ip -n A addr add fd01::1/64 dev ib0.8001 nodad; ip -n B addr add fd01::2/64 dev ib1.8001 nodad
ip -n A addr add fd02::1/64 dev ib0.8002 nodad; ip -n C addr add fd02::2/64 dev ib1.8002 nodad
ns_addr A ib0.8003 10.0.3.1/24 && ns_addr C ib1.8003 10.0.3.2/24
kids_up() { has_carrier ib0.8001 A && has_carrier ib1.8001 B && has_carrier ib0.8002 A && has_carrier ib1.8002 C; }
check "carrier on all four children" wait_for 60 kids_up
check_output "MTU 2044 on ib0.8002" 'mtu 2044' ip -n A link show ib0.8002
check "ping 0x8001 A->B" ns_reach A 10.0.1.2 3
check "ping 0x8001 B->A 2016 B with DF" ns_reach B 10.0.1.1 3 -s 2016 -M do
check "ping 0x8002 C->A" ns_reach C 10.0.2.1 3
check "ping 0x8002 A->B 2016 B with DF" ns_reach A 10.0.2.2 3 -s 2016 -M do
check "ping6 0x8001 A->B" ns_exec A /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd01::2
check "ping6 0x8002 C->A" ns_exec C /usr/bin/ping -6 -c 3 -i 0.2 -W 2 fd02::1
check_output "SA has the 0x8001 broadcast group" 'ff12:401b:8001:0000:0000:0000:ffff:ffff' cat /sys/kernel/debug/softib/sa_groups
check_output "SA has the 0x8002 broadcast group" 'ff12:401b:8002:0000:0000:0000:ffff:ffff' cat /sys/kernel/debug/softib/sa_groups
check_rc "ib0.8003 (P_Key not in the table) has no carrier" 1 has_carrier ib0.8003 A
check_rc "ib1.8003 neither" 1 has_carrier ib1.8003 C
dmesg_mark pkeyadd
check "softib adds 0x8003 to both ports' tables" sh -c 'echo "pkey_add 1 0x8003" > /sys/kernel/debug/softib/softib0/fault && echo "pkey_add 1 0x8003" > /sys/kernel/debug/softib/softib1/fault'
kids3() { has_carrier ib0.8003 A && has_carrier ib1.8003 C; }
check "after the P_Key change event both 0x8003 children get carrier" wait_for 60 kids3
check "ib0.8003 logged that its P_Key appeared" dmesg_has 'ib0.8003: P_Key 0x8003 is now in the port.s table'
check "ping 0x8003 A->C" ns_reach A 10.0.3.2 3

# isolation: ib0.8001 and ib1.8002 share a subnet but not a P_Key
ip -n A addr add 10.0.9.1/24 dev ib0.8001; ip -n C addr add 10.0.9.2/24 dev ib1.8002
check_rc "0x8001 cannot reach the peer's 0x8002 child (no ARP reply)" 1 ns_reach A 10.0.9.2 2
ip -n A neigh replace 10.0.9.2 lladdr "$(ll C ib1.8002)" dev ib0.8001 nud permanent
p0=$(cnt softib1 drop_pkey)
check_rc "... nor with a static neighbour entry" 1 ns_reach A 10.0.9.2 2
p1=$(cnt softib1 drop_pkey)
check "softib1 counted the P_Key violations ($p0 -> $p1)" test "$p1" -gt "$p0"

# ---- deletion: delete_child, ip link del (of a sysfs and of a netlink child), rmmod
dmesg_mark delete
check "delete_child 0x8001 in A" ns_exec A sh -c 'echo 0x8001 > /sys/class/net/ib0/delete_child'
check "ip link del ib0.8002 (netlink child)" ip -n A link del ib0.8002
check "ip link del ib1.8001 (sysfs child)" ip -n B link del ib1.8001
check_fail "ib0.8001 is gone" 'does not exist' ip -n A link show ib0.8001
check_output "three 'deleted child' lines" '^3$' sh -c "dmesg | sed -n '/$_dm_mark/,\$p' | grep -c 'deleted child'"
check_output "the parent ib0 is still there" 'driver: ib_ipoib_cm' ns_exec A ethtool -i ib0
ip netns delete C
check "a deleted namespace hands its children back to init_net" wait_for 10 test -e /sys/class/net/ib1.8002 -a -e /sys/class/net/ib1.8003
dmesg_mark rmmod
check "rmmod with ib0.8003, ib1.8002 and ib1.8003 still there" rmmod ib_ipoib_cm
# each child's 'deleted child' line comes before its port's 'unbound' line
order() { dmesg_since_mark | grep -Eo 'deleted child ib[01]|unbound softib[01]' | tr '\n' ' '; }
before() { case "$(order)" in *"deleted child $1"*"unbound $2"*) return 0;; esac; diag "$(order)"; return 1; }
check "ib0.8003 deleted before softib0 was unbound" before ib0 softib0
check "ib1.8002/ib1.8003 deleted before softib1 was unbound" before ib1 softib1
ndel() { order | grep -o 'deleted child' | wc -l; }
check_output "three children deleted by rmmod" '^ *3$' ndel
check "kernel log clean" dmesg_clean

# ---- races: children made and deleted through sysfs and netlink in loops while rmmod runs
ns_delete_all
check "reload" insmod /e2e/modules/ib_ipoib_cm.ko
check "ib0 and ib1 back" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
dmesg_mark race
sh -c 'while :; do echo 0x8001 > /sys/class/net/ib0/create_child; echo 0x8001 > /sys/class/net/ib0/delete_child; done' >/dev/null 2>&1 &
r1=$!
sh -c 'while :; do /sbin/ip link add link ib1 name ib1.8002 type ipoib pkey 0x8002; /sbin/ip link set ib1.8002 up; /sbin/ip link del ib1.8002; done' >/dev/null 2>&1 &
r2=$!
sleep 4
check "rmmod while children come and go" rmmod ib_ipoib_cm
kill $r1 $r2; wait $r1 $r2 2>/dev/null
check_output "no IPoIB netdev left" '^$' ipoib_netdevs
made() { dmesg_since_mark | grep -c 'created child'; }
gone() { dmesg_since_mark | grep -c 'deleted child'; }
check "the loops made children ($(made) made, $(gone) deleted)" test "$(made)" -ge 2
check "every child made was deleted" test "$(made)" = "$(gone)"
check "kernel log clean" dmesg_clean
exit $(tap_status)
