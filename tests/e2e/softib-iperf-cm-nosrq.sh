#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iperf3 TCP and UDP both ways over in-tree ipoib connected mode WITHOUT SRQ (softib srq=0:
# per-QP receive rings). The connected half of softib-iperf.sh, which this sources.
# load: ib_core
# load: ib_cm
# load: softib hosts=2 time_scale=100 srq=0
# load: ib_ipoib
# mem: 1024
# timeout: 300
# kernels: stock debug
# tier: long
. /e2e/softib-iperf.sh
