#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A non-zero exit must fail, even when every TAP line was ok.
# timeout: 30
# expect: fail exit-code
. /e2e/lib.sh
plan 1
ok "fine"
exit 3
