// SPDX-License-Identifier: GPL-2.0
// ipoib_lookup.cpp - the ib_client's get_net_dev_by_params: rdma_cm asks which of our
// netdevs a connection request belongs to; the rule is pick_netdev (ipoib_lookup.h).
#include "ipoib_device.h"
#include "ipoib_lookup.h"

namespace ipoib {

kapi_netdev *Device::get_netdev(u32 port, u16 pkey, const u8 *gid, const kapi_sockaddr *addr)
{
	const NetdevQuery q{pkey, gid};
	// ib_core holds client_data_rwsem, so remove() (our teardown) cannot run meanwhile; the
	// ports lock and each port's children lock keep the set of interfaces still while both
	// passes walk it (process context: ib_cm's work queue).
	kstd::MutexGuard g(ports_lock_);
	auto for_each = [&](auto &&visit) {
		for (Port &p : ports_) {
			if (p.num() != port)
				continue;
			p.for_each_interface([&](Interface &ifc) {
				const LocalAddrs a = ifc.local_addrs();
				visit(ifc.pkey(), a.gid, ifc.netdev());
			});
		}
	};
	auto pick = pick_netdev<kapi_netdev>(
		q, for_each, [](kapi_netdev *nd) { return kapi_netdev_hold_master(nd); },
		[addr](kapi_netdev *nd) { return kapi_netdev_hold_by_addr(nd, addr); },
		[](kapi_netdev *nd) { kapi_netdev_put(nd); });
	if (pick.duplicate()) {
		// Two interfaces of one port with the same P_Key and the same address: rdma_cm gets
		// the first. Logged at the 1st, 2nd, 4th, 8th... occurrence (no kernel ratelimit here).
		u64 n = __atomic_add_fetch(&duplicate_addrs_, 1, __ATOMIC_RELAXED);
		if ((n & (n - 1)) == 0)
			kstd::log.warn("%s port %u: rdma_cm request for an address configured on %u interfaces with P_Key 0x%04x (duplicate address, %llu times)",
				       name(), port, pick.addr_matches, pkey, (unsigned long long)n);
	}
	IPOIB_DBG(2, "%s port %u: rdma_cm lookup P_Key 0x%04x: %u L2 match(es), %s", name(), port, pkey,
		  pick.l2_matches, pick.nd ? "found" : "none");
	return pick.nd;
}
} // namespace ipoib
