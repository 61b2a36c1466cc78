#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel WARNING during the run must fail it even though the TAP is clean.
# load: e2e_selftest warn=1
# timeout: 30
# expect: fail kernel-report
. /e2e/lib.sh
plan 1
check "module loaded (and warned)" module_loaded e2e_selftest
