#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A module that cannot be unloaded after the scenario must fail the run.
# load: e2e_selftest busy=1
# timeout: 30
# expect: fail unload
. /e2e/lib.sh
plan 1
check "module loaded (and pinned)" module_loaded e2e_selftest
