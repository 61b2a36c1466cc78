#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A scenario that overruns its `# timeout:` is killed and fails; the VM still reports.
# timeout: 5
# expect: fail timeout
. /e2e/lib.sh
plan 1
sleep 600
ok "never reached"
