#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: a scenario that leaves a network namespace, a file in /tmp, a process, a
# network sysctl of the initial namespace changed and a module it loaded itself (not from
# its plan). The next scenario in the VM checks each is
# gone; the harness's cleanup between scenarios, not this one, must remove them.
# batch: first
# timeout: 30
# expect: pass
# expect-batch: ran
. /e2e/lib.sh
plan 5
check "netns e2e-left created" ip netns add e2e-left
check "file /tmp/e2e-left written" touch /tmp/e2e-left
check "neighbour gc_interval set to 7 s" sh -c 'echo 7 > /proc/sys/net/ipv4/neigh/default/gc_interval'
sleep 3600 </dev/null >/dev/null 2>&1 &
check "a process left running" kill -0 $!
# the module file is in the VM when a later scenario of the batch loads it; alone it is not
if [ -f /e2e/modules/e2e_selftest.ko ]; then
    check "e2e_selftest loaded outside the plan" insmod /e2e/modules/e2e_selftest.ko
else
    skip "e2e_selftest loaded outside the plan" "no module file (run alone)"
fi
exit 0
