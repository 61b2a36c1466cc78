#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rdma_cm to an address on a bond over our netdev: in namespace B, ib1 (ours, softib1) is the
# only slave of an active-backup bond0 that holds 10.0.0.2. Our get_net_dev_by_params must
# answer with the master (bond0), not ib1: rdma_cm then requires bond0 to be up and the
# route back to the requester to leave through it (validate_net_dev), which fails for ib1.
# Stock kernel only: the debug kernel's config has no CONFIG_BONDING.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2
# load: ib_ipoib_cm
# load: bonding
# load: ipoib_rdmacm_test
# kernels: stock
# mem: 1024
# timeout: 180
. /e2e/lib.sh
plan 8

mkdir -p /run/dbg && mount -t debugfs none /run/dbg
CTL=/run/dbg/ipoib_rdmacm_test/ctl
cmd() { _ns=$1; shift; ns_exec "$_ns" sh -c "echo $* > $CTL"; }
result() { cat $CTL; }

check "ib0 and ib1 exist" wait_for 30 sh -c 'test -e /sys/class/net/ib0 && test -e /sys/class/net/ib1'
ns_create A B
ns_move ib0 A && ns_move ib1 B
ns_addr A ib0 10.0.0.1/24
ns_ip B link add bond0 type bond mode active-backup miimon 100
check "ib1 enslaved to bond0" ns_ip B link set ib1 master bond0
ns_addr B bond0 10.0.0.2/24
ns_ip B link set ib1 up
check "carrier on ib0" wait_carrier ib0 A 60
check "carrier on bond0" wait_carrier bond0 B 60
check "ping A->bond0" ns_reach A 10.0.0.2 3
dmesg_mark rdmacm
check "listen on 10.0.0.2:7471 in B (on bond0)" cmd B listen 10.0.0.2 7471
check "connect from A: 20 x 4096 B" cmd A connect 10.0.0.2 7471 20 4096
run result
check "kernel log clean" dmesg_clean
cmd B stop
ns_delete_all
umount /run/dbg
exit $(tap_status)
