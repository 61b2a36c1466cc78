#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ipoib-cm-interop.sh without SRQ: softib srq=0 makes create_srq fail, so both drivers run
# connected mode with a receive ring per RC QP (ours: nonsrq_min_recv=1 buffer at first,
# growing on demand; in-tree: its full ring). Same steps, same assertions (rx_posted >= 1 is
# then the QP's own ring).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 srq=0
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1 ifname=icm%d nonsrq_min_recv=1
# mem: 1024
# timeout: 420
# kernels: stock debug
. /e2e/ipoib-cm-interop.sh
