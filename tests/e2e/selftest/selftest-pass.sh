#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Control case: a clean scenario with a harmless test module must PASS (the verdict is not
# failing everything).
# load: e2e_selftest
# timeout: 30
# expect-retries: 0
# expect: pass
. /e2e/lib.sh
plan 2
check "e2e_selftest loaded" module_loaded e2e_selftest
check "its load line is in the kernel log" dmesg_has 'e2e_selftest: loaded'
