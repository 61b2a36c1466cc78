#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's in-tree IB stack loads with no IB device, the tools in the initramfs run, and
# everything unloads cleanly (the harness rmmods in reverse order and checks the kernel log).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: ib_uverbs
# load: rdma_cm
# load: ib_ipoib
# mem: 768
# timeout: 60
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 14

check_netns_shared() { rdma system show | grep -q 'netns shared'; }
netns_roundtrip() {
    ns_create e2eA e2eB && ns_exec e2eA /sbin/ip -o link show lo | grep -q UP &&
        ns_ip e2eB addr show lo | grep -q 127.0.0.1 && ns_reach e2eA 127.0.0.1 1 &&
        ip netns del e2eA && ip netns del e2eB
}

for m in ib_core ib_cm ib_umad ib_uverbs rdma_cm ib_ipoib; do
    check "$m is loaded" module_loaded $m
done
check "rdma dev runs (no devices)" rdma dev
check "rdma system show: netns mode shared" check_netns_shared
check "no ib_device registered" test -z "$(ib_devices)"
check "no ipoib netdev without a device" test -z "$(ipoib_netdevs)"
check_output "ip is iproute2, not busybox" '^ip utility, iproute2' ip -V
check "tools run: ping ethtool iperf3 ibstat ss tc" sh -c \
    '/usr/bin/ping -V && ethtool --version && iperf3 --version && ibstat -V && ss -V && /sbin/tc -V'
check "netns: create, exec, ping inside, delete" netns_roundtrip
check "ping over loopback" ping -c 1 -W 2 127.0.0.1
exit $(tap_status)
