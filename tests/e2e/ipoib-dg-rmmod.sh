#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm datagram mode, removal under traffic: rmmod ib_ipoib_cm while iperf3 runs TCP in
# both directions and UDP at once (netdevs, UD QPs and PDs of ours gone, kernel log clean),
# reload (no NETDEV_CHANGEADDR for a netdev that is not registered yet: a kprobe on
# call_netdevice_notifiers sees every such event with the device name, which is still the
# "ib%d" template before registration) and traffic again; then rmmod softib (IB device removal)
# under our traffic: both ports unbind cleanly and ib_ipoib_cm stays loaded.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 240
# tier: full
. /e2e/lib.sh
plan 30

ko=/e2e/modules/ib_ipoib_cm.ko
rxb() { hwc "$1" rx_bytes; }
setup() {
    ns_move ib0 A && ns_move ib1 B &&
        ns_addr A ib0 10.0.0.1/24 && ns_addr B ib1 10.0.0.2/24 &&
        wait_carrier ib0 A 60 && wait_carrier ib1 B 60
}
# both_moving: more than 2 MB arrived on each port since rx0/rx1 were taken
both_moving() { [ "$(rxb softib0)" -gt $((rx0 + 2000000)) ] && [ "$(rxb softib1)" -gt $((rx1 + 2000000)) ]; }
unbound() { dmesg_since_mark | grep -c 'ib_ipoib_cm: unbound softib'; }
gone() { ! ip -n A link show ib0 >/dev/null 2>&1 && ! ip -n B link show ib1 >/dev/null 2>&1; }

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
ns_create A B
check "namespaces, addresses, carrier" setup
check "ping" ns_reach A 10.0.0.2 3

# ---- rmmod ib_ipoib_cm under TCP A->B, TCP B->A, UDP A->B
ns_exec B iperf3 -s -D -p 5201 >/dev/null 2>&1
ns_exec A iperf3 -s -D -p 5202 >/dev/null 2>&1
ns_exec B iperf3 -s -D -p 5203 >/dev/null 2>&1
# the daemons may take a while to listen on the debug kernel: a client refused exits at once
listening() { ns_exec B ss -ltn | grep -q ':5201 ' && ns_exec A ss -ltn | grep -q ':5202 ' && ns_exec B ss -ltn | grep -q ':5203 '; }
check "iperf3 servers listening" wait_for 30 listening
# positive controls for the "nothing left" checks after rmmod: the same queries see ours now
check "control: rdma lists our UD QPs while loaded" sh -c 'rdma resource show qp | grep "type UD"'
check "control: rdma lists our PDs while loaded" sh -c 'rdma resource show pd | grep ib_ipoib_cm'
rx0=$(rxb softib0); rx1=$(rxb softib1)
/sbin/ip netns exec A iperf3 -c 10.0.0.2 -p 5201 -t 60 >/tmp/tcp1.out 2>&1 & c1=$!
/sbin/ip netns exec B iperf3 -c 10.0.0.1 -p 5202 -t 60 >/tmp/tcp2.out 2>&1 & c2=$!
/sbin/ip netns exec A iperf3 -u -b 20M -c 10.0.0.2 -p 5203 -t 60 >/tmp/udp.out 2>&1 & c3=$!
check "traffic both ways (> 2 MB received on each port)" wait_for 40 both_moving
dmesg_mark rmmod
check "rmmod ib_ipoib_cm under traffic" rmmod ib_ipoib_cm
check_output "both ports unbound" '^2$' unbound
check "netdevs gone" gone
check_output "rdma still lists the GSI QPs" 'type GSI' rdma resource show qp
check_rc "no UD QP left (only the GSI QPs)" 1 sh -c 'rdma resource show qp | grep "type UD"'
check_output "rdma still lists PDs (ib_core's MAD agents)" 'pdn' rdma resource show pd
check_rc "no PD of ours left" 1 sh -c 'rdma resource show pd | grep ib_ipoib_cm'
kill $c1 $c2 $c3 2>/dev/null; wait $c1 $c2 $c3 2>/dev/null
check "kernel log clean after rmmod" dmesg_clean

# ---- reload, watching NETDEV_CHANGEADDR (8) on our netdevs
tr=/sys/kernel/tracing
mount -t tracefs nodev $tr 2>/dev/null
# Both kernels have CONFIG_KPROBE_EVENTS (the debug config asks for it): no probe is a failure,
# not a skip. dev->name by BTF where the kernel has BTF probe arguments (6.12: struct
# net_device was reordered there and name is no longer its first member); else (6.1) at
# offset 0 of dev. The control check below fails if the name is not where the probe reads it.
kprobe() {
    { echo 'p:e2e/ndnotify call_netdevice_notifiers val=%di:u64 name=dev->name:string' >> $tr/kprobe_events 2>/dev/null ||
        echo 'p:e2e/ndnotify call_netdevice_notifiers val=%di:u64 name=+0(%si):string' >> $tr/kprobe_events; } &&
        echo 1 > $tr/events/e2e/ndnotify/enable && echo > $tr/trace
}
check "kprobe on call_netdevice_notifiers" kprobe
changeaddr() { grep "val=8 " $tr/trace; }
check "insmod again" insmod $ko
check "ib0 and ib1 again" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
diag "NETDEV_CHANGEADDR events during insmod: $(changeaddr)"
check_rc "no NETDEV_CHANGEADDR before registration (name still ib%d)" 1 grep -E 'val=8 name="ib%d"' $tr/trace
check "namespaces, addresses, carrier after reload" setup
check "ping after reload" ns_reach A 10.0.0.2 3
check_output "iperf3 TCP after reload" 'receiver' ns_exec A iperf3 -c 10.0.0.2 -p 5201 -t 3 -f m
# the probe does see a NETDEV_CHANGEADDR of ours (rtnetlink sends one for IFLA_BROADCAST), in
# the form the check above looks for
ip -n A link set ib0 broadcast "$(ip netns exec A cat /sys/class/net/ib0/broadcast)"
check_output "control: the kprobe sees NETDEV_CHANGEADDR of ib0" 'val=8 name="ib0"' grep -E 'val=8 name="ib0"' $tr/trace
echo 0 > $tr/events/e2e/ndnotify/enable; echo '-:e2e/ndnotify' >> $tr/kprobe_events

# ---- rmmod softib (device removal) under our traffic
rx0=$(rxb softib0); rx1=$(rxb softib1)
/sbin/ip netns exec A iperf3 -c 10.0.0.2 -p 5201 -t 60 >/tmp/tcp1.out 2>&1 & c1=$!
/sbin/ip netns exec B iperf3 -c 10.0.0.1 -p 5202 -t 60 >/tmp/tcp2.out 2>&1 & c2=$!
check "traffic both ways again" wait_for 40 both_moving
dmesg_mark rmsoftib
check "rmmod softib under our traffic" rmmod softib
check_output "both ports unbound on device removal" '^2$' unbound
check "netdevs gone with the devices" gone
check "ib_ipoib_cm still loaded" module_loaded ib_ipoib_cm
kill $c1 $c2 2>/dev/null; wait $c1 $c2 2>/dev/null
check "rmmod ib_ipoib_cm afterwards" rmmod ib_ipoib_cm
check "kernel log clean" dmesg_clean
ns_delete_all
exit $(tap_status)
