#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: a kernel WARNING during this scenario fails this one only (its segment holds the
# report); the W taint it leaves stops the batch.
# load: e2e_selftest warn=1
# timeout: 30
# expect: fail kernel-report taint
# expect-batch: failed
. /e2e/lib.sh
plan 1
check "module loaded (and warned)" module_loaded e2e_selftest
