#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: the first of three scenarios in one VM; the middle one fails. This one passes in
# the batch (its verdict is its own segment's, not the batch's).
# batch: first
# load: e2e_selftest
# timeout: 30
# expect: pass
# expect-batch: ran
. /e2e/lib.sh
plan 1
check "e2e_selftest loaded from this scenario's plan" module_loaded e2e_selftest
