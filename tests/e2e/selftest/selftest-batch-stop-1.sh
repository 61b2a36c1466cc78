#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Batching: passes before a scenario whose module cannot be unloaded.
# batch: first
# timeout: 30
# expect: pass
# expect-batch: ran
. /e2e/lib.sh
plan 1
ok "nothing happens here"
