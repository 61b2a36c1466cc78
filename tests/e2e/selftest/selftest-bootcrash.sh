#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel that dies before our init runs is booted once more (RETRY on the console, counted in
# the TAP-tests line); dying again fails the scenario as vm-died + boot-crash. rdinit= names an
# init that does not exist, so every boot panics ("No working init found") before E2E-BOOTED.
# This script never runs.
# cmdline: rdinit=/no-such-init
# timeout: 30
# expect-retries: 1
# expect: fail vm-died kernel-report boot-crash
. /e2e/lib.sh
plan 1
not_ok "the kernel booted past a missing init"
