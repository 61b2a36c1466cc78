#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A TODO check that passes (`ok N - ... # TODO`) must fail the scenario: the known defect no
# longer shows, so the marker goes (reason todo-passed).
# timeout: 30
# expect: fail todo-passed
. /e2e/lib.sh
plan 2
ok "an ordinary check"
echo "ok 2 - a known defect that no longer shows # TODO recorded defect"
_tap_n=2
