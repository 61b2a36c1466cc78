// SPDX-License-Identifier: GPL-2.0
// ipoib_lookup.h - which of our netdevs an incoming rdma_cm connection request belongs to:
// the policy behind the ib_client's get_net_dev_by_params (pure, header-only, for KUnit).
//
// rdma_cm (drivers/infiniband/core/cma.c, cma_get_net_dev) asks every ib_client, through
// ib_get_net_dev_by_params(), for the netdev of a REQ that arrived on (device, port) with the
// REQ's P_Key, the local GID of its primary path and the IP address it was sent to (from the
// rdma_cm private data). The netdev it gets decides the network namespace whose listeners
// are searched, and the route back to the requester must leave through it
// (validate_net_dev); without one the REQ is rejected. The contract, as ib_ipoib keeps it:
//   1. L2: every interface of the port whose P_Key and GID match. Exactly one match -> that
//      netdev (or the master it is enslaved to, e.g. a bond), whatever its addresses.
//   2. More than one (P_Key children sharing the port GID and a P_Key): the address decides;
//      the first interface that has it, itself or on an upper device, wins; a second one is
//      a duplicate address (reported, first kept).
//   3. None: not ours (another client, e.g. the in-tree ib_ipoib, may own it).
#pragma once

#include "core/ipoib_addr.h"

namespace ipoib {

// P_Keys match when their 15-bit base values are equal (IBA 10.9.3); the membership bit
// does not make a second partition. ib_core's ib_find_cached_pkey (which ib_ipoib compares
// indexes from) folds both members of a partition onto one table entry the same way.
constexpr bool pkey_matches(u16 a, u16 b)
{
	return (a & 0x7fff) == (b & 0x7fff);
}

// What the REQ says about its destination interface.
struct NetdevQuery {
	u16 pkey = 0;
	const u8 *gid = nullptr;	// the REQ's local GID; nullptr: any GID

	bool l2_matches(u16 if_pkey, const u8 *if_gid) const
	{
		return pkey_matches(pkey, if_pkey) && (!gid || bytes_equal(gid, if_gid, kGidLen));
	}
};

template <typename H> struct NetdevPick {
	H *nd = nullptr;	// held (the caller releases it), or nullptr
	u32 l2_matches = 0;	// interfaces of the port with matching P_Key and GID
	u32 addr_matches = 0;	// of those, with the address (only counted when l2_matches > 1)
	bool duplicate() const { return addr_matches > 1; }
};

// The selection rule above over any set of interfaces, so that tests can drive it:
//   for_each(visit)   calls visit(u16 pkey, const u8 *gid, H *nd) for every interface of the
//                     port (it may be called twice; the set must not change in between);
//   hold_l2(nd)       -> nd's master, else nd itself, with a reference (never nullptr);
//   hold_addr(nd)     -> the device that has the address, nd itself or an upper device of
//                        it, with a reference; nullptr when none has it;
//   put(nd)           drops a reference taken by hold_l2/hold_addr.
template <typename H, typename ForEach, typename HoldL2, typename HoldAddr, typename Put>
NetdevPick<H> pick_netdev(const NetdevQuery &q, ForEach &&for_each, HoldL2 &&hold_l2,
			  HoldAddr &&hold_addr, Put &&put)
{
	NetdevPick<H> r;
	H *only = nullptr;
	for_each([&](u16 pkey, const u8 *gid, H *nd) {
		if (q.l2_matches(pkey, gid) && r.l2_matches++ == 0)
			only = nd;
	});
	if (r.l2_matches == 0)
		return r;
	if (r.l2_matches == 1) {
		r.nd = hold_l2(only);
		return r;
	}
	for_each([&](u16 pkey, const u8 *gid, H *nd) {
		if (!q.l2_matches(pkey, gid))
			return;
		H *held = hold_addr(nd);
		if (!held)
			return;
		if (r.addr_matches++ == 0)
			r.nd = held;
		else
			put(held);
	});
	return r;
}

} // namespace ipoib
