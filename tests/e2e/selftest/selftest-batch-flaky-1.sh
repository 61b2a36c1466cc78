#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: leaves a file outside what the harness cleans between scenarios (/e2e), so the
# next scenario fails in the batch and passes alone.
# batch: first
# timeout: 30
# expect: pass
# expect-batch: ran
. /e2e/lib.sh
plan 1
check "marker /e2e/.batch-flaky written" touch /e2e/.batch-flaky
