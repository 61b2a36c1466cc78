#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A lockdep report (debug kernel) must fail the run.
# load: e2e_selftest lockdep=1
# timeout: 30
# kernels: debug
# expect: fail kernel-report
. /e2e/lib.sh
plan 1
check "module loaded (took A-B then B-A)" module_loaded e2e_selftest
