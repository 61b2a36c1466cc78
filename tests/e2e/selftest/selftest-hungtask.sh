#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A task blocked (TASK_UNINTERRUPTIBLE) for longer than hung_task_timeout_secs must fail the
# run through its "INFO: task ... blocked for more than N seconds" report.
# load: e2e_selftest
# timeout: 60
# expect: fail kernel-report
. /e2e/lib.sh
plan 3
check "hung-task detector present" test -w /proc/sys/kernel/hung_task_timeout_secs
echo 2 > /proc/sys/kernel/hung_task_timeout_secs
check "a kthread sleeps 20 s uninterruptibly" sh -c 'echo hung > /sys/module/e2e_selftest/parameters/trigger'
check "the detector reported it" wait_dmesg 40 'INFO: task e2e_hung:[0-9]+ blocked for more than'
exit $(tap_status)
