#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: the last of three; runs after a failing scenario in the same VM and passes there.
# load: e2e_selftest
# timeout: 30
# expect: pass
# expect-batch: ran
. /e2e/lib.sh
plan 1
check "e2e_selftest loaded again from this scenario's plan" module_loaded e2e_selftest
