// SPDX-License-Identifier: GPL-2.0
// ipoib_if.cpp - the interface (ipoib_if.h): bring-up and staged teardown, open/stop, port
// events and the flush levels, the interface work, CQ moderation. The send and receive paths
// and NAPI are in ipoib_if_datapath.cpp.
#include "ipoib_if.h"
#include "core/netdev/ipoib_mode.h"
#include "core/ipoib_params.h"

namespace ipoib {

namespace {

constexpr u32 kDefaultMtu = 2044;	// RFC 4391 §7: every implementation supports 2044

} // namespace

void Ah::put()
{
	if (ref_.put())
		owner_.reap_later(this);
}

void Ah::destroy()
{
	if (ah_)
		kapi_ah_destroy(kstd::exchange(ah_, static_cast<kapi_ah *>(nullptr)));
}

void Interface::reap_later(Ah *ah)
{
	reaper_.add(*ah);
	if (nd())
		schedule_work(nd(), 0);
}

// Dead AHs whose sends all completed (the last-send rule, ipoib_ah.h); the others are
// looked at again shortly (UD sends complete as soon as the port sent them).
void Interface::reap_ahs()
{
	constexpr u32 kReapRetryMs = 100;
	const u32 left = reaper_.reap(
		[this] {
			if (nd())
				kapi_netdev_tx_barrier(nd());
		},
		[this] { return AhReaper::Progress{tx_.completed(), tx_.posted()}; });
	if (left && nd())
		schedule_work(nd(), kReapRetryMs);
}

// ---- bring-up / teardown ----

Status Interface::start(const IfConfig &cfg)
{
	kapi_port_attr attr{};
	KSTD_TRY(kstd::from_errno(kapi_ib_query_port(ib_, port_, &attr)));
	if (cfg.pkey) {
		child_ = true;	// a P_Key child: the QP gets its index below (ipoib_child.cpp)
		pkey_ = cfg.pkey;
	} else {
		KSTD_TRY(kstd::from_errno(kapi_ib_query_pkey(ib_, port_, 0, &pkey_)));
	}
	KSTD_TRY(kstd::from_errno(kapi_ib_query_gid(ib_, port_, 0, gid_)));
	lid_ = attr.lid;
	max_ud_mtu_ = ud_mtu(attr.max_mtu);
	if (!max_ud_mtu_)
		return Status::Invalid;
	pkey_ |= 0x8000;
	make_broadcast_mgid(pkey_, 2, bcast_mgid_);
	publish_addrs();

	KSTD_TRY(rx_.alloc(cfg.recv_queue_size));
	KSTD_TRY(tx_.alloc(cfg.send_queue_size));
	KSTD_TRY(neigh_start());

	kapi_netdev_setup s{};
	s.name = cfg.ifname;
	s.dev_port = port_ - 1;
	s.mtu = kDefaultMtu < max_ud_mtu_ ? kDefaultMtu : max_ud_mtu_;
	s.max_mtu = max_ud_mtu_;
	s.tx_queue_len = cfg.send_queue_size * 2;
	s.hw_features = mode::kOffered;	// what each mode keeps: Interface::fix_features
	s.hard_header_len = kHardLen;
	s.addr_len = kHwAddrLen;
	bytes_copy(s.broadcast, make_broadcast_addr(pkey_, 2).b, kHwAddrLen);
	s.owner = cfg.owner;
	s.parent = cfg.parent;
	s.adopt = cfg.adopt;
	// dev_addr gets the QPN once the QP exists (below, before register).
	netdev_.reset(kapi_netdev_alloc(&s, ib_, ctx()));
	if (!netdev_)
		return Status::NoMem;

	pd_.reset(kapi_pd_alloc(ib_));
	if (!pd_)
		return Status::NoMem;
	lkey_ = kapi_pd_lkey(pd_.get());
	// Connected mode's SRQ (if the device has them) first: the receive CQ's size depends on it.
	KSTD_TRY(cm_.start(cfg.cm, tx_.size(), rx_.size()));
	send_cq_.reset(kapi_cq_create_napi(ib_, nd(), int(tx_.size())));
	// One receive CQ for UD receives and every RC QP's receives, sends and drain WR
	// (docs/connected.md §4), sized for all of them.
	recv_cq_.reset(kapi_cq_create_napi(ib_, nd(), int(rx_.size() + cm_.cq_entries())));
	if (!send_cq_ || !recv_cq_)
		return Status::NoMem;
	qp_.on_fatal([](void *self) { static_cast<Interface *>(self)->ud_error_seen(); }, this);
	KSTD_TRY(qp_.create(pd_.get(), send_cq_.get(), recv_cq_.get(), tx_.size(), rx_.size()));
	qpn_ = qp_.qpn();
	rx_.bind(nd(), RecvTarget{qp_.raw(), nullptr}, lkey_);
	tx_.bind(nd(), qp_.raw(), lkey_);
	// Q_Key 0 until the broadcast join tells us the link's (RFC 4391 §5, §9.1.2).
	if (!child_) {
		KSTD_TRY(qp_.to_rts(port_, 0));
	} else {
		pkey_ok_ = pkey_check();	// QP to RTS now, or when a P_Key event brings the P_Key
	}

	HwAddr me = HwAddr::make(addr_flags(), qpn_, gid_);
	kapi_netdev_set_dev_addr(nd(), me.b);
	events_.reset(kapi_ib_event_register(ib_, ctx()));
	if (!events_)
		return Status::NoMem;
	KSTD_TRY(kstd::from_errno(cfg.rtnl_held ? kapi_netdev_register_locked(nd()) : kapi_netdev_register(nd())));
	registered_ = true;
	add_debugfs();	// optional: no debugfs is fine (sets log_prefix_ too)
	log_.info("UD QPN 0x%06x, P_Key 0x%04x%s, port MTU %u, %u/%u rx/tx entries, %s (Receive MTU %u)", qpn_,
		  pkey_, pkey_ok_ ? "" : " (not in the port's P_Key table: no carrier until it is)", max_ud_mtu_,
		  rx_.size(), tx_.size(), cm_.summary(), cm_.recv_mtu());
	return Status::Ok;
}

void Interface::add_debugfs()
{
	static const char *const names[kDebugViews] = {"paths", "mcast", "neigh", "connections",
						       kTestKnobs ? "send_accepted" : nullptr, "rc_send", "cm_limits"};
	// the name now, under the lock a rename takes: a rename from here on renames both
	kstd::MutexGuard g(names_lock_);
	StrView(kapi_netdev_name(nd())).copy_to(log_prefix_, sizeof(log_prefix_));
	debugfs_.reset(kapi_debugfs_dir(kapi_netdev_name(nd())));
	if (!debugfs_)
		return;
	for (u32 i = 0; i < kDebugViews; i++) {
		debug_files_[i].owner = this;
		debug_files_[i].view = DebugView(i);
		if (DebugView(i) == DebugView::SendAccepted && !kTestKnobs)
			continue;	// a test knob: only in the test variant (ipoib_params.h)
		(DebugView(i) == DebugView::SendAccepted ? kapi_debugfs_knob : kapi_debugfs_file)(
			debugfs_.get(), names[i], debug_files_[i].ctx());
	}
}

void Interface::teardown(bool rtnl_held)
{
	// 1. unpublish: debugfs, then unregister (runs stop() when up: leaves groups, flushes paths)
	{
		kstd::MutexGuard g(names_lock_);
		debugfs_.reset();
	}
	if (kstd::exchange(registered_, false)) {
		if (rtnl_held)
			kapi_netdev_unregister_locked(nd());
		else
			kapi_netdev_unregister(nd());
	}
	// 2. quiesce: no more events, work, SA callbacks or completions
	events_.reset();
	if (nd())
		kapi_netdev_cancel_work(nd());
	neigh_destroy();	// GC cancelled, every Neigh freed (its RCU callback has run)
	// Each callback ends its own. Every query was cancelled (by path_flush, or by its starter
	// when the flush came before the query id) or times out (kPathQueryTimeoutMs), and ib_sa
	// calls back in either case: wait for all of them, as freeing the Paths first would hand
	// a late callback freed memory.
	while (!queries_.wait_idle(log_, "path queries", 5000, 60000)) {
		// past the bound (a WARN: a lost end()): still never free under a callback
	}
	qp_.to_error();
	qp_.destroy();
	cm_.teardown();	// after stop: ForceDestroy what still drains (the CQ goes next), the SRQ
	// 3. free: buffers still posted or in flight, then CQs, AHs, PD, netdev
	rx_.release();
	tx_.drain();
	send_cq_.reset();
	recv_cq_.reset();
	reap_ahs();
	pd_.reset();
	if (nd()) {
		// The last AH puts above may have scheduled the reaper again.
		kapi_netdev_cancel_work(nd());
		drop_icmps();
		netdev_.reset();
	}
}

void Interface::publish_addrs()
{
	u64 w[5] = {};
	bytes_copy(reinterpret_cast<u8 *>(&w[0]), gid_, kGidLen);
	bytes_copy(reinterpret_cast<u8 *>(&w[2]), bcast_mgid_, kGidLen);
	w[4] = __atomic_load_n(&lid_, __ATOMIC_RELAXED);
	addrs_.write(w);
}

LocalAddrs Interface::local_addrs() const
{
	u64 w[5];
	addrs_.read(w);
	LocalAddrs a;
	bytes_copy(a.gid, reinterpret_cast<const u8 *>(&w[0]), kGidLen);
	bytes_copy(a.bcast_mgid, reinterpret_cast<const u8 *>(&w[2]), kGidLen);
	a.lid = u32(w[4]);
	return a;
}

// The broadcast group comes first on every (re)start of the link (RFC 4391 §5).
Status Interface::add_broadcast_group()
{
	auto g = kstd::make_unique<McGroup>(Gfp::Kernel, this);
	if (!g.ok())
		return Status::NoMem;
	McGroup *b = g.take().release();
	bytes_copy(b->mgid, bcast_mgid_, kGidLen);
	b->broadcast = true;
	mcast_.add_broadcast(*b);
	return Status::Ok;
}

Status Interface::open()
{
	if (!qp_.raw())	// a ring resize that could not build a UD QP (ipoib_if_rings.cpp)
		return Status::NoDevice;
	kapi_port_attr attr{};
	if (kapi_ib_query_port(ib_, port_, &attr) == 0)
		lid_ = attr.lid;
	publish_addrs();
	__atomic_store_n(&up_, true, __ATOMIC_RELEASE);
	if (!kstd::ok(add_broadcast_group())) {
		__atomic_store_n(&up_, false, __ATOMIC_RELEASE);
		return Status::NoMem;
	}
	// A repair that failed or gave up left the flag set (repair_ud_qp): the work's repair
	// below looks at the QP again; until it runs, a QP still in ERROR flushes what is posted.
	__atomic_store_n(&ud_draining_, false, __ATOMIC_RELEASE);
	napi_on();
	kapi_netdev_start_queue(nd());
	kapi_napi_schedule(nd());
	// ifdown/ifup starts the UD QP's repair afresh (after giving up too): the work looks at
	// the QP's state and repairs it only in ERROR.
	ud_repair_.reset();
	ud_repair_.request();
	kstd::ignore(cm_.open());	// the listeners; without them only datagram mode works (logged)
	schedule_work(nd(), 0);
	kapi_dwork_schedule(gc_.get(), unsigned(gc_period_ms(kapi_arp_gc_interval_ms())));
	return Status::Ok;
}

void Interface::napi_on()
{
	if (napi_on_)
		return;
	kapi_napi_enable(nd());
	napi_on_ = true;
}

void Interface::napi_off()
{
	if (!napi_on_)
		return;
	kapi_napi_disable(nd());
	napi_on_ = false;
}

// ndo_stop (rtnl held, xmit no longer called). Once it returns nobody holds a group, path or
// send of this interface: the work, GC, SA (left, cancelled), RCU callbacks and NAPI are done.
void Interface::stop()
{
	constexpr unsigned kDrainMs = 5000;	// the in-tree driver's bound (ipoib_ib_dev_stop_default)
	// 1. unpublish: no carrier, no new sends, no work or GC runs from here on.
	__atomic_store_n(&up_, false, __ATOMIC_RELEASE);
	carrier_ = false;
	kapi_netdev_carrier(nd(), 0);
	kapi_netdev_stop_queue(nd());
	kapi_netdev_cancel_work(nd());
	neigh_stop();
	// 2. quiesce: groups left, neighbours and paths gone (callbacks ran, AHs put), then the
	// sends posted before stop (each owns an skb and pins an AH): UD sends complete once the
	// port sent them, and NAPI, still enabled, reaps them and wakes us when the ring is empty.
	mcast_flush();
	path_flush();		// every neighbour and path
	kapi_rcu_barrier();	// the groups' and neighbours' callbacks (paths and AHs put)
	if (!tx_.wait_empty(kDrainMs)) {
		count(stats_.tx_stop_timeouts);
		log_.warn("%u sends still outstanding %u ms after stop: left for the next open or teardown",
			  tx_.outstanding(), kDrainMs);
	}
	cm_.stop_begin();	// connections close while NAPI still polls their fences
	napi_off();	// already off after a ring resize that could not reopen
	cm_.stop_end();		// NAPI off: what still drains keeps its QP until the next open's NAPI
	poll_tx();	// completions that arrived between the wake-up and the disable
	// 3. release: AHs whose sends all completed.
	reap_ahs();
	drop_icmps();	// the work is cancelled: nobody else sends them now
}

// Receive CQ moderation; a provider without it (-EOPNOTSUPP) still records the values,
// as the in-tree driver does.
Status Interface::set_coalesce(u32 usecs, u32 frames)
{
	if (usecs > 0xffff || frames > 0xffff) {	// the CQ moderation fields are 16 bits
		log_.warn("invalid coalescing rx-usecs %u rx-frames %u: at most 65535 each", usecs, frames);
		return Status::Invalid;
	}
	int rc = kapi_cq_moderate(recv_cq_.get(), u16(frames), u16(usecs));
	if (rc && rc != -KAPI_EOPNOTSUPP) {
		log_.warn("cannot set receive CQ moderation: %d", rc);
		return kstd::from_errno(rc);
	}
	coal_usecs_ = usecs;
	coal_frames_ = frames;
	return Status::Ok;
}

u32 Interface::speed_mbps()
{
	kapi_port_attr a{};
	if (kapi_ib_query_port(ib_, port_, &a) != 0)
		return 0;
	return link_speed_mbps(a.active_speed, a.active_width);
}

void Interface::port_event(kapi_ib_event_kind kind, u32 port)
{
	Flush level = flush_for(kind);
	if (port != port_ || level == Flush::None)
		return;
	__atomic_fetch_or(&flush_pending_, 1u << u32(level), __ATOMIC_ACQ_REL);
	if (nd())
		schedule_work(nd(), 0);
}

// Process context (the work item), interface up. Events that arrived together are served
// by one flush, the strongest among them. False when the port is not active: the carrier
// stays off until PORT_ACTIVE brings a normal flush.
bool Interface::flush(u32 pending)
{
	constexpr u32 kHeavy = 1u << u32(Flush::Heavy), kNormal = 1u << u32(Flush::Normal);
	// A child's P_Key may come or go with any table refresh: re-check it on every flush.
	bool pkey_moved = false;
	bool relink = false;	// the parent's P_Key changed: new broadcast group
	if (child_) {
		const bool was_ok = pkey_ok_;
		pkey_ok_ = pkey_check();
		pkey_moved = was_ok != pkey_ok_;
	}
	if (pending & kHeavy) {
		count(stats_.flush_heavy);
		pending &= ~kHeavy;
		// A P_Key table change matters only if our own entry changed (parent: index 0).
		u16 pkey = 0;
		const bool same = child_ ? !pkey_moved
					 : kapi_ib_query_pkey(ib_, port_, 0, &pkey) == 0 && (pkey | 0x8000) == pkey_;
		if (same) {
			if (pkey_ok_)
				log_.info("P_Key table changed, 0x%04x still at index %u", pkey_, pkey_index_);
			else
				log_.info("P_Key table changed, 0x%04x still not in it", pkey_);
			if (!pending)
				return true;
		} else {
			if (!child_ && kapi_ib_query_pkey(ib_, port_, 0, &pkey) == 0 && (pkey & 0x7fff)) {
				// The parent follows index 0, as in-tree (update_parent_pkey): new
				// broadcast address and group, every membership left (the MGIDs embed
				// the P_Key); the QP keeps index 0, so its P_Key follows by itself.
				log_.warn("P_Key at index 0 is now 0x%04x (was 0x%04x): restarting the link on it",
					  pkey | 0x8000, pkey_);
				__atomic_store_n(&pkey_, u16(pkey | 0x8000), __ATOMIC_RELAXED);
				make_broadcast_mgid(pkey_, 2, bcast_mgid_);
				kapi_netdev_set_broadcast(nd(), make_broadcast_addr(pkey_, 2).b);
				relink = true;
			}
			pending |= kNormal;
		}
	}
	const bool normal = pending & kNormal;
	count(normal ? stats_.flush_normal : stats_.flush_light);
	refresh_gid();
	kapi_port_attr attr{};
	if (kapi_ib_query_port(ib_, port_, &attr) == 0)
		lid_ = attr.lid;
	publish_addrs();	// the GID, LID and broadcast MGID NAPI and xmit see
	const bool active = attr.state == KAPI_IB_PORT_ACTIVE;
	// Both levels: every path record may be stale (new LID, new SM, re-registration), so
	// paths are re-queried on next use and every group is joined again. Only a normal flush
	// drops the carrier: the link restarts from the broadcast join (RFC 4391 §5).
	path_flush();
	if (relink) {
		carrier_ = false;
		kapi_netdev_carrier(nd(), 0);
		mcast_flush();
		if (!kstd::ok(add_broadcast_group()))
			log_.err("cannot allocate the broadcast group: link stays down");
	} else {
		mcast_restart(!normal && active);
	}
	if (!active) {
		carrier_ = false;
		kapi_netdev_carrier(nd(), 0);
		log_.info("port %u not active, carrier off", port_);
	}
	return active;
}

// The port GID (index 0) is half of our link-layer address (RFC 4391 §9.1.1): when the SM or
// the HCA changes it (GID_CHANGE), the address follows, as the in-tree driver's does.
void Interface::refresh_gid()
{
	u8 gid[kGidLen];
	if (kapi_ib_query_gid(ib_, port_, 0, gid) != 0 || bytes_equal(gid, gid_, kGidLen))
		return;
	log_.info("port GID changed to %pI6: updating the link-layer address", gid);
	count(stats_.gid_changes);
	bytes_copy(gid_, gid, kGidLen);
	addr_pending_ = true;
}

void Interface::update_dev_addr()
{
	HwAddr me = HwAddr::make(addr_flags(), qpn_, gid_);
	if (kapi_netdev_set_dev_addr_trylock(nd(), me.b) == -KAPI_EAGAIN) {
		schedule_work(nd(), 10);
		return;
	}
	addr_pending_ = false;
}

void Interface::work()
{
	send_icmps();	// queued by xmit (ipoib_if_mode.cpp)
	if (!is_up())
		return;
	reap_ahs();
	if (__atomic_exchange_n(&ud_check_, false, __ATOMIC_ACQ_REL)) {
		const UdQp::Recovery r = qp_.recover();
		if (r == UdQp::Recovery::Recovered)
			count(stats_.ud_qp_recoveries);
		else if (r == UdQp::Recovery::InError)
			ud_repair_.request();	// served just below
		else if (r != UdQp::Recovery::NotNeeded)
			count(stats_.ud_qp_recovery_failures);
	}
	repair_ud();
	u32 pending = __atomic_exchange_n(&flush_pending_, 0u, __ATOMIC_ACQ_REL);
	if (pending && !flush(pending))
		return;
	if (addr_pending_)
		update_dev_addr();
	if (!pkey_ok_)	// a child without its P_Key: no joins until a P_Key change event
		return;
	mcast_work();
}

} // namespace ipoib
