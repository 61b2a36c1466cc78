#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ipoib-cm-storm.sh with softib srq=0 at softib's most hosts, 128 (a hub of ours with as many
# softib hosts as the VM holds): every RC QP, on the hub and on
# each peer, has its own receive ring (nonsrq_min_recv=1: one buffer at first, growing on
# demand), and the hub's 127 connections count against the non-SRQ limit (nonsrq_mem_mb's,
# 1180 at the defaults). Same steps, same assertions, and round 1 measures what the idle
# connections pin (free pages and the driver's rc_pinned_kib per connection, both bounded:
# ipoib-cm-storm.sh). 179 s on stock at 128 hosts with a make test alongside (133 s at 64).
# load: ib_core
# load: ib_cm
# load: ib_umad
# load: softib hosts=128 srq=0
# load: ib_ipoib_cm ifname=icm%d recv_queue_size=64 nonsrq_min_recv=1
# mem: 3072
# timeout: 900
# kernels: stock
# tier: long
# (about 2.6 min on stock; make test-full: the bounds it checks are memory goals, and the
# guarantee of a receive posted on every non-SRQ QP is checked in make test by
# ipoib-cm-send-accepted-nosrq, ipoib-cm-nosrq-cq and ipoib-cm-mixed-srq.)
. /e2e/ipoib-cm-storm.sh
