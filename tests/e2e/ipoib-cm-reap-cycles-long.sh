#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ipoib-cm-reap-cycles.sh with 125 rounds of 8 peers: 1,000 connect/reap cycles (make
# test-full), the same assertions and tolerances, which at this count
# catch a leak of >= 4 KiB of pages or >= 1 KiB of slab per cycle. About 12-17 minutes on stock
# (the 104 cycles of the short one take 50-75 s of cycling).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=9 srq=0
# load: ib_ipoib_cm ifname=icm%d cm_idle_timeout=1 nonsrq_min_recv=1
# mem: 1024
# timeout: 1500
# kernels: stock
# tier: long
# (not on the debug kernel: 1,000 cycles there would take over an hour; the 104 of
# ipoib-cm-reap-cycles.sh run there in make test-full, with kmemleak's scan)
ROUNDS=125
. /e2e/ipoib-cm-reap-cycles.sh
