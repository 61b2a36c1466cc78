#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The text-poke race's other form: a vCPU that keeps re-entering the int3 handler until the
# soft-lockup (or RCU-stall) detector reports it, with an int3-handler RIP (asm_exc_int3,
# exc_int3, do_int3, poke_int3_handler) within 60 lines of the report. The harness stops the
# VM at that report and runs it once more (RETRY, counted); a second one fails the scenario.
# Both lines are written into the kernel log here (the real race cannot be provoked), then the
# scenario waits as the looping vCPU's guest would, so the harness's stop is what ends it
# (vm-died: the VM stopped before the scenario's end).
# timeout: 60
# expect-retries: 1
# expect: fail kernel-report vm-died
. /e2e/lib.sh
plan 1
echo "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [ksoftirqd/1:22] (e2e selftest, not a real one)" > /dev/kmsg
echo "RIP: 0010:asm_exc_int3+0x0/0x40" > /dev/kmsg
ok "wrote a soft-lockup report with an int3-handler RIP into the kernel log"
sleep 50
