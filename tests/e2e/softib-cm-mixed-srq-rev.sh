#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# softib-cm-mixed-srq.sh with the reverse assignment: host_srq=0,1 (softib0 in A has no SRQ,
# softib1 in B has one), so the non-SRQ host initiates the first RC connection.
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100 host_srq=0,1
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: full
. /e2e/softib-cm-mixed-srq.sh
