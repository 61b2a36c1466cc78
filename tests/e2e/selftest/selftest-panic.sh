#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel panic (sysrq crash) must fail the run: no verdict from the VM, Oops in the log.
# batch: alone
# timeout: 30
# expect: fail vm-died kernel-report
. /e2e/lib.sh
plan 1
ok "about to crash the kernel"
sleep 0.5
echo c > /proc/sysrq-trigger
