#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A VM that never finishes (module init that sleeps for an hour) must be killed by the
# host's time limit and fail.
# load: e2e_selftest hang=1
# timeout: 10
# vm-limit: 45
# expect: fail vm-timeout
. /e2e/lib.sh
plan 1
ok "never reached"
