#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A boot that does not reach init's E2E-BOOTED within the boot allowance is killed and booted
# once more (RETRY, counted); twice fails as boot-hang. `init=` cannot make a kernel hang, so
# the allowance is made impossibly short instead: with `# boot-allow: 0` every boot "hangs".
# This script never runs.
# boot-allow: 0
# timeout: 30
# expect-retries: 1
# expect: fail vm-died boot-hang
. /e2e/lib.sh
plan 1
not_ok "the boot watch let a boot through"
