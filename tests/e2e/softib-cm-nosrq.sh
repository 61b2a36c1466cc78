#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib stage 2 without SRQ: softib srq=0 makes create_srq return -EOPNOTSUPP, so in-tree
# ipoib runs connected mode with per-QP receive rings (reaped by flush counting). Same steps
# as softib-cm-srq.sh.
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100 srq=0
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: full
. /e2e/softib-cm-srq.sh
