#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: fails when selftest-batch-flaky-1's marker is there (in the batch), passes alone:
# the harness must report it FLAKY, not PASS.
# timeout: 30
# expect: flaky
# expect-batch: failed
. /e2e/lib.sh
plan 1
check "no marker /e2e/.batch-flaky" sh -c '[ ! -e /e2e/.batch-flaky ]'
