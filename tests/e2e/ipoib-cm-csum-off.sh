#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ipoib-cm-csum.sh with ours loaded cm_csum_free=0: the same traffic, and not one packet
# goes without its checksum (rc_tx_csum_skipped +0 ours<->ours too), ethtool -k shows no
# checksum offload in connected mode; forwarding and the in-tree peer as before.
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=3
# load: ib_ipoib
# load: ib_ipoib_cm ports=softib0:1,softib1:1 ifname=icm%d cm_csum_free=0
# mem: 1024
# timeout: 420
# kernels: stock
# tier: long
# (about 60 s on stock; make test-full: the checksum-free path it switches off is checked
# in make test by ipoib-cm-csum and ipoib-cm-csum-fwd.)
. /e2e/ipoib-cm-csum.sh
