#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ib_ipoib_cm.ko (built at the repo root for this kernel) loads with no IB device, takes its
# parameters, says so in the kernel log (its load line is a debug_level>=1 message), creates
# nothing, and unloads cleanly. Skipped (TAP SKIP) while the module is not built, unless
# vm-test runs with --strict.
# load: ib_ipoib_cm debug_level=1
# mem: 768
# timeout: 60
# kernels: stock debug
# tier: full
. /e2e/lib.sh
plan 6

load_line() {
    # its own lines, not the kernel's taint/signature notices about it
    dmesg | grep 'ib_ipoib_cm' | grep -Ev 'taints kernel|module verification failed|signature'
}
check "ib_ipoib_cm is loaded" module_loaded ib_ipoib_cm
check_output "parameter passed through (debug_level=1)" '^1$' cat /sys/module/ib_ipoib_cm/parameters/debug_level
check_output "kernel log has its load line" 'ib_ipoib_cm.*load' load_line
check "it uses ib_core (holder)" test -e /sys/module/ib_core/holders/ib_ipoib_cm
check "no ib_device registered" test -z "$(ib_devices)"
check "no ipoib netdev without a device" test -z "$(ipoib_netdevs)"
diag "$(load_line | tail -n 3)"
exit $(tap_status)
