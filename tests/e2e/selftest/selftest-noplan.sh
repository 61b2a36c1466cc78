#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TAP with no plan line must fail.
# timeout: 30
# expect: fail no-plan
. /e2e/lib.sh
ok "a test, but no plan"
