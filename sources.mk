# SPDX-License-Identifier: GPL-2.0
# sources.mk - the C++ objects of the driver's core, listed once: paths from the repository
# root, each built from the .cpp of the same stem (scripts/cxx.mk). Read by Kbuild (the
# driver: all of them), kunit/kernel/Kbuild (the KUnit module) and kunit/Makefile (the host
# runner); docs/layout.md says what each folder holds.
#
# Includes: a header of the core is included by its path from the repository root
# ("core/rings/ipoib_recv_ring.h", "ipoib_if.h"), so every build passes the root with -I.

# In the driver, the KUnit module and the host runner: pure logic, the C++ runtime and the
# page-fragment buffers (over kapi/skb.c, which the KUnit module links).
ipoib-objs-kunit := core/kstd_rt.o core/ipoib_params.o core/ipoib_addr.o \
	core/netdev/ipoib_pkey.o core/netdev/ipoib_mode.o core/netdev/ipoib_oversize.o \
	core/ud/ipoib_neigh_policy.o core/rings/ipoib_frag.o core/cm/ipoib_cm_wire.o \
	core/cm/fsm/ipoib_cm_state.o core/cm/fsm/ipoib_cm_state_live.o core/cm/fsm/ipoib_cm_policy.o

# In the driver and the host runner (over the fake verbs layer, kunit/host/fake_*.c).
ipoib-objs-host := core/ud/ipoib_ud_qp.o core/ud/ipoib_mcast_table.o core/ud/ipoib_path_cache.o \
	core/rings/ipoib_recv_ring.o core/rings/ipoib_tx_ring.o core/rings/ipoib_rc_tx_ring.o

# In the driver only: the spine at the root, and the parts that need ib_core.
ipoib-objs-driver := ipoib_main.o ipoib_device.o ipoib_child.o ipoib_lookup.o ipoib_entry.o \
	ipoib_if.o ipoib_if_datapath.o ipoib_cm.o ipoib_cm_stop.o ipoib_cm_show.o \
	core/netdev/ipoib_if_mode.o core/netdev/ipoib_if_attrs.o core/netdev/ipoib_if_rings.o \
	core/ud/ipoib_mcast.o core/ud/ipoib_path.o core/ud/ipoib_neigh.o \
	core/cm/ipoib_cm_conn.o core/cm/ipoib_cm_conn_exec.o core/cm/ipoib_cm_peer_actions.o \
	core/cm/ipoib_cm_xmit.o core/cm/ipoib_cm_admission.o core/cm/ipoib_cm_ident.o

ipoib-cxx-objs := $(ipoib-objs-kunit) $(ipoib-objs-host) $(ipoib-objs-driver)
