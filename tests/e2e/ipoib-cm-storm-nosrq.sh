#!/bin/sh
# ipoib-cm-storm.sh with softib srq=0: every RC QP, on the hub and on each peer, has its own
# receive ring (nonsrq_min_recv=1: one buffer at first, growing on demand), and the hub's
# connections count against max_nonsrq_conn_qp (128 > the 63 peers). Same steps, same
# assertions.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=64 srq=0
# load: ib_ipoib_cm ifname=icm%d recv_queue_size=64 nonsrq_min_recv=1
# mem: 3072
# timeout: 600
# kernels: stock
. /e2e/ipoib-cm-storm.sh
