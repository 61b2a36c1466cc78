#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: after a scenario whose cleanup left a taint the batch stops; this one is not run
# there and runs alone (not counted as flaky).
# timeout: 30
# expect: pass
# expect-batch: not-run
. /e2e/lib.sh
plan 1
ok "ran in a VM of its own"
