#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: after a failed unload the batch stops; this one runs alone (not flaky).
# load: e2e_selftest
# timeout: 30
# expect: pass
# expect-batch: not-run
. /e2e/lib.sh
plan 1
check "e2e_selftest loaded from this scenario's plan" module_loaded e2e_selftest
