#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A `not ok` line must fail the scenario (even with exit status 0).
# timeout: 30
# expect: fail not-ok
. /e2e/lib.sh
plan 2
ok "this one passes"
not_ok "this one fails on purpose"
exit 0
