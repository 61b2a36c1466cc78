#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: passes before a scenario that WARNs in the same VM; the warning is not its.
# batch: first
# timeout: 30
# expect: pass
# expect-batch: ran
. /e2e/lib.sh
plan 1
ok "nothing happens here"
sleep 1
