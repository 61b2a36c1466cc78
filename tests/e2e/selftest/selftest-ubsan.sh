#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Undefined behaviour caught by UBSAN (the debug kernel: UBSAN_BOUNDS, UBSAN_SHIFT) must fail
# the run through its "UBSAN: ..." report. Neither fault touches memory out of bounds, so
# KASAN stays quiet: the report is UBSAN's own.
# load: e2e_selftest
# kernels: debug
# timeout: 60
# expect: fail kernel-report
. /e2e/lib.sh
plan 3
check "trigger an index and a shift out of range" sh -c 'echo ubsan > /sys/module/e2e_selftest/parameters/trigger'
check "UBSAN reported the index" wait_dmesg 20 'UBSAN: array-index-out-of-bounds'
check "UBSAN reported the shift" wait_dmesg 20 'UBSAN: shift-out-of-bounds'
exit $(tap_status)
