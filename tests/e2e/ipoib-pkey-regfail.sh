#!/bin/sh
# A P_Key child whose register_netdevice() fails after its sysfs step is freed exactly once. The test
# knob debugfs ib_ipoib_cm/fail_child_register = N makes the next N children fail in
# netdev_register_kobject(), where the kernel leaves the device NETREG_UNREGISTERED (6.1 and
# 6.12). For `ip link add ... type ipoib` rtnl_newlink_create() then frees the net_device
# itself when newlink returns the error: the shim must not free it too (a kapi_netdev_free
# then would be a use after free and a double free). A sysfs
# create_child child is ours alone and must be freed once by us (kmemleak on the debug
# kernel would see it leak). Each kind fails three times, then each succeeds without the
# knob, the children are deleted, and the kernel log has no report (the harness also
# rmmods ib_ipoib_cm).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=1 pkeys=0x8001,0x8002
# load: ib_ipoib_cm
# timeout: 120
# tier: core
. /e2e/lib.sh
plan 17

knob=/sys/kernel/debug/ib_ipoib_cm/fail_child_register
links() { ls /sys/class/net | tr '\n' ' '; }
check "ib0 exists" wait_for 30 test -e /sys/class/net/ib0
check "the test knob fail_child_register exists and reads 0" sh -c "test \"\$(cat $knob)\" = 0"
before=$(links)
dmesg_mark regfail

# rtnl: three failed `ip link add`, each freed once (by rtnl_newlink_create, not by us)
rtnl_fails() {
    echo 1 > $knob || return 1
    _out=$(ip link add link ib0 name ib0.8002 type ipoib pkey 0x8002 2>&1) && { diag "ip link add succeeded"; return 1; }
    echo "$_out" | grep -q 'No such file or directory' || { diag "ip link add: $_out"; return 1; }
    [ "$(cat $knob)" = 0 ] && [ ! -e /sys/class/net/ib0.8002 ]
}
check "ip link add with the knob set: ENOENT, no ib0.8002, knob consumed (1)" rtnl_fails
check "... (2)" rtnl_fails
check "... (3)" rtnl_fails
# logged PATTERN: kernel log lines since the mark with this fixed string
logged() { dmesg_since_mark | grep -cF -- "$1"; }
kobj='kobject_add_internal failed for net (error: -2 parent: ib_ipoib_cm-fail_child_register)'
# the kernel step that failed is the glue directory under the child's parent device
check_output "three 'kobject_add_internal failed' lines: the sysfs step failed" '^3$' logged "$kobj"
check_output "three 'cannot create the child ... 0x8002: error -2' lines" '^3$' logged 'cannot create the child with P_Key 0x8002: error -2'

# sysfs create_child: ours alone to free
sysfs_fails() {
    echo 1 > $knob || return 1
    sh -c 'echo 0x8001 > /sys/class/net/ib0/create_child' 2>/dev/null && { diag "create_child succeeded"; return 1; }
    [ "$(cat $knob)" = 0 ] && [ ! -e /sys/class/net/ib0.8001 ]
}
check "create_child with the knob set: refused, no ib0.8001 (1)" sysfs_fails
check "... (2)" sysfs_fails
check "... (3)" sysfs_fails
check_output "six 'kobject_add_internal failed' lines in all" '^6$' logged "$kobj"
check_output "three 'cannot create the child ... 0x8001: error -2' lines" '^3$' logged 'cannot create the child with P_Key 0x8001: error -2'
check_output "the set of netdevs is what it was" "^$before\$" links

# without the knob both kinds work (nothing was left half-made)
check "ip link add ib0.8002 without the knob" ip link add link ib0 name ib0.8002 type ipoib pkey 0x8002
check "create_child 0x8001 without the knob" sh -c 'echo 0x8001 > /sys/class/net/ib0/create_child'
check "both children deleted (ip link del, delete_child)" sh -c '/sbin/ip link del ib0.8002 && echo 0x8001 > /sys/class/net/ib0/delete_child && ! test -e /sys/class/net/ib0.8002 && ! test -e /sys/class/net/ib0.8001'
check "kernel log clean (no KASAN report, no BUG)" dmesg_clean
exit $(tap_status)
