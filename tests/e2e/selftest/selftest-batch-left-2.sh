#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: runs after selftest-batch-left-1 in the same VM and finds nothing it left: its own
# plan loads e2e_selftest (which fails if the other's copy were still loaded).
# load: e2e_selftest
# timeout: 30
# expect: pass
# expect-batch: ran
. /e2e/lib.sh
plan 5
check "e2e_selftest loaded from this scenario's plan" module_loaded e2e_selftest
check "no netns e2e-left" sh -c '! ip netns list | grep -q e2e-left'
check "no /tmp/e2e-left" sh -c '[ ! -e /tmp/e2e-left ]'
check_output "gc_interval back to the kernel's 30 s" '^30$' cat /proc/sys/net/ipv4/neigh/default/gc_interval
check "no sleep 3600 left" sh -c '! ps | grep -v grep | grep -q "sleep 3600"'
