#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kmemleak report (debug kernel) must fail the run.
# load: e2e_selftest leak=1
# timeout: 30
# kernels: debug
# expect: fail leak
. /e2e/lib.sh
plan 1
check "module loaded (and leaked 128 bytes)" module_loaded e2e_selftest
