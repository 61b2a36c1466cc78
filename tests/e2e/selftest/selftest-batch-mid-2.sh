#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: the middle scenario of a batch fails (a `not ok`): it fails in the batch with the
# same reason as alone, and the scenarios before and after it still pass there.
# timeout: 30
# expect: fail not-ok
# expect-batch: failed
. /e2e/lib.sh
plan 2
ok "this one passes"
not_ok "this one fails on purpose"
exit 0
