#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rdma_cm between ib_ipoib_cm and the unmodified in-tree ib_ipoib over softib: ours on
# softib0 (icm0, namespace A), in-tree on softib1 (ib1, namespace B); the in-tree netdev on
# softib0 (ib0) stays down in the init namespace. Driven by tests/kmod/ipoib_rdmacm_test.
# ours -> in-tree: our netdev resolves the address, the in-tree driver's get_net_dev_by_params
# maps the REQ on softib1 to ib1. in-tree -> ours: on softib0 both drivers are ib_clients and
# ib_core asks them in registration order, so the in-tree driver (loaded first) answers with
# its own ib0 (same port, GID and P_Key, but down) and rdma_cm rejects the REQ; recorded as a
# diagnostic (a limitation of running two IPoIB drivers on one port), not as a check. With
# ib_ipoib_cm loaded before ib_ipoib (ours asked first) that direction works too (tried once).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1 ifname=icm%d
# load: ipoib_rdmacm_test
# mem: 1024
# timeout: 240
. /e2e/lib.sh
plan 12

mkdir -p /run/dbg && mount -t debugfs none /run/dbg
CTL=/run/dbg/ipoib_rdmacm_test/ctl
cmd() { _ns=$1; shift; ns_exec "$_ns" sh -c "echo $* > $CTL"; }
result() { cat $CTL; }

check "icm0 (ours) and ib1 (in-tree) exist" wait_for 30 sh -c 'test -e /sys/class/net/icm0 && test -e /sys/class/net/ib1'
check_output "ib1 is in-tree" 'driver: ib_ipoib$' ethtool -i ib1
ip link set ib0 down 2>/dev/null
ns_pair icm0 ib1
check "carrier on icm0" wait_carrier icm0 A 60
check "carrier on ib1" wait_carrier ib1 B 60
check "ping ours->in-tree" ns_reach A 10.0.0.2 3

dmesg_mark rdmacm
check "listen on 10.0.0.2:7471 in B (in-tree)" cmd B listen 10.0.0.2 7471
check "connect ours->in-tree: 100 x 4096 B" cmd A connect 10.0.0.2 7471 100 4096
check_output "client: ok, 100 messages verified each way" 'status=ok .* messages=100 bytes_sent=409600 bytes_received=409600 errors=0' result
check "listen on [fd00::2]:7471 in B (in-tree)" cmd B listen fd00::2 7471
check "connect ours->in-tree over IPv6: 20 x 2048 B" cmd A connect fd00::2 7471 20 2048
check_output "client (IPv6): ok, 20 messages verified each way" 'status=ok .* messages=20 bytes_sent=40960 bytes_received=40960 errors=0' result

# in-tree -> ours (see the header): record what happens
cmd A listen 10.0.0.1 7472
if cmd B connect 10.0.0.1 7472 10 1024 2>/dev/null; then r="works"; else r="fails"; fi
diag "in-tree -> ours over rdma_cm $r: $(result | head -n 1)"
check "kernel log clean" dmesg_clean
diag "$(dmesg_since_mark | grep ipoib_rdmacm_test)"
cmd A stop
ns_delete_all
umount /run/dbg
exit $(tap_status)
