#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ipoib-cm-mixed-srq.sh with host_srq=0,1,1: A (ours) without SRQ, B (ours) and C (in-tree)
# with one. Same steps, same assertions.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3 host_srq=0,1,1
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d
# mem: 1280
# timeout: 360
# kernels: stock debug
. /e2e/ipoib-cm-mixed-srq.sh
