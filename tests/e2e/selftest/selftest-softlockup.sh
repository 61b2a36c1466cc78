#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A CPU stuck in the kernel (a kthread spinning with preemption off) for longer than twice
# watchdog_thresh must fail the run through its "BUG: soft lockup" report (on the debug kernel
# too, which boots with nosoftlockup: the guest's init re-enables the detector).
# load: e2e_selftest
# timeout: 60
# expect: fail kernel-report
. /e2e/lib.sh
plan 4
check "soft-lockup detector present" test -w /proc/sys/kernel/watchdog_thresh
# debug VMs boot with nosoftlockup; init turned the detector back on before the load
check "soft-lockup detector on (soft_watchdog 1)" grep -qx 1 /proc/sys/kernel/soft_watchdog
echo 1 > /proc/sys/kernel/watchdog_thresh
check "a kthread spins 8 s with preemption off" sh -c 'echo softlockup > /sys/module/e2e_selftest/parameters/trigger'
check "the detector reported it" wait_dmesg 40 'soft lockup - CPU#[0-9]+ stuck for'
exit $(tap_status)
