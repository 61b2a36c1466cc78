#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An "Oops: int3" whose RIP is in core kernel text after init ran (the TCG race with
# static-key patching seen on 6.12) is run once more (RETRY on the console, counted); a second
# one fails the scenario. The report is written into the kernel log here (the real race
# cannot be provoked), in the shape of the logs that race left, so both runs fail the same way.
# timeout: 30
# expect-retries: 1
# expect: fail kernel-report
. /e2e/lib.sh
plan 1
echo "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI (e2e selftest, not a real one)" > /dev/kmsg
echo "RIP: 0010:netif_receive_skb+0x28/0x160" > /dev/kmsg
ok "wrote a core-text int3 report into the kernel log"
