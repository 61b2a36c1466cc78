#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An "Oops: int3" whose RIP is in a module's text is never retried (a kprobe on our code, say):
# the scenario fails at once. The report is written into the kernel log here.
# timeout: 30
# expect-retries: 0
# expect: fail kernel-report
. /e2e/lib.sh
plan 1
echo "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI (e2e selftest, not a real one)" > /dev/kmsg
echo "RIP: 0010:kapi_napi_kick_fn+0x0/0x20 [ib_ipoib_cm]" > /dev/kmsg
ok "wrote a module-text int3 report into the kernel log"
