#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm as an ib_client: it binds every IB port of every softib host (one netdev each),
# logs each bound and unbound port, honours ports= (device or device:port), and refuses
# malformed ports=/ifname=/debug_level with -EINVAL and exactly one log line, loading nothing.
# load: softib hosts=2 ports_per_host=2
# load: ib_ipoib_cm
# mem: 1024
# timeout: 150
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 16

ko=/e2e/modules/ib_ipoib_cm.ko
bound() { dmesg_since_mark | grep -c 'ib_ipoib_cm: bound softib'; }
unbound() { dmesg_since_mark | grep -c 'ib_ipoib_cm: unbound softib'; }

check "loaded by the harness with every port" module_loaded ib_ipoib_cm
check_output "4 ports bound" '^4$' bound
for p in softib0:1 softib0:2 softib1:1 softib1:2; do
    check "bound ${p%:*} port ${p#*:}" dmesg_has "ib_ipoib_cm: bound ${p%:*} port ${p#*:} as "
done
check_output "4 IPoIB netdevs" '^4$' sh -c 'ls /sys/class/net | grep -c "^ib[0-9]"'
check "rmmod" rmmod ib_ipoib_cm
check_output "4 ports unbound" '^4$' unbound

dmesg_mark filter
check "loads with ports=softib1:2,softib0" insmod $ko ports=softib1:2,softib0 debug_level=1
check_output "3 ports bound" '^3$' bound
check "softib1 port 1 skipped" dmesg_has 'skipping softib1 port 1: not selected by ports='
check "rmmod" rmmod ib_ipoib_cm

# kmod's insmod (busybox insmod retries a failed finit_module with init_module, so the
# kernel would print every parameter error twice)
ln -sf /usr/bin/kmod /tmp/insmod
# bad PARAM=VALUE: insmod must fail, with exactly one "invalid" line, and bind nothing
bad() {
    dmesg_mark bad
    if /tmp/insmod $ko "$1" 2>/dev/null; then rmmod ib_ipoib_cm; return 1; fi
    [ "$(dmesg_since_mark | grep -c 'ib_ipoib_cm: invalid')" = 1 ] && [ "$(bound)" = 0 ] &&
        ! module_loaded ib_ipoib_cm
}
check "ports=softib0:x refused with one log line" bad ports=softib0:x
check "ifname=ib%d%d refused with one log line" bad 'ifname=ib%d%d'
check "debug_level=9 refused with one log line" bad debug_level=9
exit $(tap_status)
