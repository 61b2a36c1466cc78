// SPDX-License-Identifier: GPL-2.0
// ipoib_if_mode.cpp - an interface's admin mode (RFC 4755 §1: datagram or connected) as the
// netdev shows it: the sysfs/netlink switch, the MTU each mode allows (ipoib_mode.h), the
// offloads it allows, and what happens to a packet above the UD path's MTU
// (ipoib_oversize.h). Every mode change is serialised by rtnl.
#include "ipoib_if.h"
#include "core/cm/ipoib_cm_wire.h"
#include "core/netdev/ipoib_mode.h"
#include "core/netdev/ipoib_oversize.h"

namespace ipoib {

// Connected mode's largest MTU: 65520, or less when the device's receive SGEs hold less
// (docs/connected.md §5: 16 SGEs hold 65152 octets). The Receive MTU we advertise is what the
// buffers hold (RFC 4755 §6), so the netdev never takes a packet no connection could carry.
u32 Interface::cm_mtu_cap() const
{
	const u32 held = cm_.available() ? cm::connection_mtu(cm_.recv_mtu(), cm::kMaxRecvMtu) : mode::kCmMtu;
	return held < mode::kCmMtu ? held : mode::kCmMtu;
}

u32 Interface::mode_max_mtu(bool connected) const
{
	const u32 m = mode::max_mtu(connected, ud_mtu_limit());
	const u32 cap = cm_mtu_cap();
	return connected && m > cap ? cap : m;
}

Status Interface::change_mtu(u32 mtu)
{
	const bool cm = connected_mode();
	const u32 limit = mode_max_mtu(cm);
	if (mtu > limit) {
		log_.warn("MTU %u exceeds the %s mode's %u", mtu, mode::name(cm), limit);
		return Status::Invalid;
	}
	if (cm && mtu > ud_mtu_limit())
		log_.info("MTU %u: multicast packets above the UD MTU %u will be dropped", mtu, ud_mtu_limit());
	return Status::Ok;
}

u32 Interface::fix_features(u32 features) const
{
	return mode::fix_features(features, connected_mode(), cm_.csum_free());
}

// rtnl held (sysfs store, changelink, newlink). The order keeps every intermediate state
// valid for dev_set_mtu: the larger bound first when raising, the MTU first when lowering.
void Interface::apply_mode(bool connected)
{
	const bool was = connected_mode();
	__atomic_store_n(&connected_, connected, __ATOMIC_RELEASE);
	if (was != connected) {
		count(stats_.mode_changes);
		log_.info("%s mode", mode::name(connected));
	}
	kapi_netdev_update_features(nd());	// ndo_fix_features asks fix_features()
	const u32 ud = ud_mtu_limit();
	u32 target = mode::switch_mtu(connected, kapi_netdev_mtu(nd()), ud);
	if (connected && target > cm_mtu_cap())
		target = cm_mtu_cap();
	if (connected)
		kapi_netdev_set_max_mtu(nd(), mode_max_mtu(true));
	int rc = kapi_netdev_set_mtu_locked(nd(), target);
	if (rc)
		log_.warn("cannot set MTU %u for %s mode: %d", target, mode::name(connected), rc);
	if (!connected)
		kapi_netdev_set_max_mtu(nd(), mode::max_mtu(false, ud));
	// Connections follow: in datagram mode active ones close and passive ones stop sending
	// (they keep receiving); in connected mode passive bidirectional ones may send again.
	if (was != connected)
		cm_.mode_changed(connected);
}

// The work, rtnl held: the broadcast group (re)joined with mcast_mtu_. Datagram mode takes
// its MTU (RFC 4391 §7); connected mode keeps the admin's MTU and its 65520 bound.
void Interface::join_mtu()
{
	const bool cm = connected_mode();
	if (!mode::join_sets_mtu(cm))
		return;
	kapi_netdev_set_max_mtu(nd(), mode::max_mtu(cm, mcast_mtu_));	// datagram only (join_sets_mtu)
	int rc = kapi_netdev_set_mtu_locked(nd(), mcast_mtu_);
	if (rc)
		log_.warn("cannot set MTU %u: %d", mcast_mtu_, rc);
}

// xmit (netif tx lock held): skb data starts at the encapsulation header (its head may be
// short of a fragmented skb's whole length: queue_too_big pulls what it reads). A path that
// cannot take the packet tells the sender when the protocol has a way to (so its PMTU
// follows; the ICMP itself goes out from the work, icmp_q_), and drops it in every case.
void Interface::send_too_big(kapi_skb *skb, bool multicast)
{
	queue_too_big(skb, multicast, mcast_mtu_, 0);
}

// The in-tree driver answers every IPv4 packet above a connection's MTU with frag-needed,
// DF or not (ipoib_cm_skb_too_long); ours takes the UD path's verdict: a forwarded IPv4
// packet without DF is dropped unanswered (RFC 1812 §5.2.6 would have it fragmented).
void Interface::send_too_big_rc(kapi_skb *skb, u32 conn_mtu)
{
	queue_too_big(skb, false, conn_mtu, conn_mtu);
}

// icmp_mtu: the MTU the ICMP carries, 0 for the UD path's as it is when the work sends it.
void Interface::queue_too_big(kapi_skb *skb, bool multicast, u32 mtu, u32 icmp_mtu)
{
	// oversize() reads the encapsulation and the IP header's first octets from the linear
	// head; an SG skb whose head is shorter than that (not one TCP or UDP builds) is
	// linearized first.
	if (kapi_skb_headlen(skb) < kOversizeHead && kapi_skb_headlen(skb) != kapi_skb_len(skb) &&
	    kapi_skb_linearize(skb) != 0)
		return drop(skb, stats_.tx_drop_linearize);
	switch (oversize(kapi_skb_data(skb), kapi_skb_len(skb), multicast, kapi_icmp_skb_local(skb), mtu)) {
	case Oversize::Fits:
		return drop(skb, stats_.tx_drop_too_big);	// not called for these
	case Oversize::FragNeeded:
	case Oversize::PktTooBig: {
		bool queued;
		{
			kstd::Guard<kstd::lock_policy::SpinIrqSave> g(icmp_lock_);
			queued = icmp_q_.push(IcmpItem{skb, icmp_mtu});
		}
		if (!queued)
			return drop(skb, stats_.tx_drop_icmp_queue_full);
		schedule_work(nd(), 0);
		return;
	}
	case Oversize::DropMcast:
		if (!__atomic_exchange_n(&mcast_big_warned_, true, __ATOMIC_RELAXED))
			log_.warn("multicast packet of %u octets above the UD MTU %u dropped (counted: tx_drop_mcast_too_big; logged once)",
				  kapi_skb_len(skb) - u32(kEncapLen), mtu);
		return drop(skb, stats_.tx_drop_mcast_too_big);
	case Oversize::Drop:
		break;
	}
	drop(skb, stats_.tx_drop_too_big);
}

// The work (process context). The verdict is taken again with the MTU of now for the UD path:
// one that grew meanwhile (a new broadcast join) makes the ICMP carry the right value, or
// none. A connection's MTU is fixed for its life (RFC 4755 §5.1), so its value stands.
void Interface::send_icmps()
{
	for (;;) {
		IcmpItem it;
		{
			kstd::Guard<kstd::lock_policy::SpinIrqSave> g(icmp_lock_);
			if (!icmp_q_.pop(it))
				return;
		}
		kapi_skb *skb = it.skb;
		const u32 mtu = it.mtu ? it.mtu : mcast_mtu_;
		switch (oversize(kapi_skb_data(skb), kapi_skb_len(skb), false, kapi_icmp_skb_local(skb), mtu)) {
		case Oversize::FragNeeded:
			kapi_icmp_frag_needed(skb, mtu);
			drop(skb, stats_.tx_icmp_frag_needed);
			break;
		case Oversize::PktTooBig:
			kapi_icmpv6_pkt_too_big(skb, mtu);
			drop(skb, stats_.tx_icmp_pkt_too_big);
			break;
		default:
			drop(skb, stats_.tx_drop_too_big);
			break;
		}
	}
}

void Interface::drop_icmps()
{
	IcmpItem it;
	for (;;) {
		{
			kstd::Guard<kstd::lock_policy::SpinIrqSave> g(icmp_lock_);
			if (!icmp_q_.pop(it))
				return;
		}
		drop(it.skb, stats_.tx_drop_not_up);
	}
}

} // namespace ipoib
