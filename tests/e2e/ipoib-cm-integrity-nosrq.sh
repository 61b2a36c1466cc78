#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ipoib-cm-integrity.sh without SRQ (softib host_srq=0,0,0) and every per-QP ring of ours held
# at exactly one buffer (nonsrq_min_recv=1 nonsrq_max_recv=1). Same steps, same assertions;
# 60 s for each transfer (an MTU 2044 one takes up to 17 s here on the stock kernel, 2 s with
# SRQ), so that five stalled ones still end within the scenario's limit.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3 host_srq=0,0,0
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d nonsrq_min_recv=1 nonsrq_max_recv=1
# mem: 1280
# timeout: 420
# kernels: stock
# tier: long
XFER_LIMIT=60
. /e2e/ipoib-cm-integrity.sh
