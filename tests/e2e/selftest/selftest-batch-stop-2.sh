#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: its module stays pinned, the unload fails: it fails, and the batch stops.
# load: e2e_selftest busy=1
# timeout: 30
# expect: fail unload
# expect-batch: failed
. /e2e/lib.sh
plan 1
check "module loaded (and pinned)" module_loaded e2e_selftest
