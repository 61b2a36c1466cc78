#!/bin/sh
# ipoib-cm-send-accepted.sh with softib srq=0: A's active QP receives on its own ring (one
# buffer at first, nonsrq_min_recv=1, growing on demand) what B sends over the connection it
# accepted. Same steps, same assertions.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=2 srq=0
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d cm_bidir=0 nonsrq_min_recv=1
# mem: 1024
# timeout: 300
# tier: core
# kernels: stock debug
. /e2e/ipoib-cm-send-accepted.sh
