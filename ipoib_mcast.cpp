// SPDX-License-Identifier: GPL-2.0
// ipoib_mcast.cpp - multicast groups over the SA: the broadcast group first (RFC 4391 §5:
// FullMember join, adopt its Q_Key and MTU, then carrier), full-member joins for the
// netdev's multicast list, send-only joins for groups we only send to (RFC 4391 §10) with
// a bounded queue per group, leaves, and exponential join back-off.
#include "ipoib_if.h"

namespace ipoib {

namespace {

constexpr u32 kMinBackoffMs = 1000;
constexpr u32 kMaxBackoffMs = 16000;
constexpr int kMaxMcList = 64;	// multicast addresses taken from the netdev per sync
constexpr u8 kJoinFull = 0x1;		// JoinState FullMember (RFC 4392 §1.3.1.1)
constexpr u8 kJoinSendOnlyFull = 0x8;	// SendOnlyFullMember (IBA 1.3)

// Exponential back-off of failed joins: 1, 2, 4, 8, 16, 16... s. Caller holds mcast_lock_.
void mark_failed(McGroup &g)
{
	g.state = McGroup::State::Failed;
	u32 next = g.backoff_ms * 2;
	g.backoff_ms = !g.backoff_ms ? kMinBackoffMs : (next > kMaxBackoffMs ? kMaxBackoffMs : next);
	g.retry_at = kapi_now_ms() + g.backoff_ms;
}

} // namespace

McGroup *Interface::find_group(const u8 *mgid)
{
	for (McGroup &g : groups_)
		if (bytes_equal(g.mgid, mgid, kGidLen))
			return &g;
	return nullptr;
}

void Interface::send_multicast(kapi_skb *skb, const u8 *mgid)
{
	AhRef ah;
	u32 qkey = 0;
	bool need_work = false;
	u64 *dropped = nullptr;
	{
		kstd::SpinIrqSaveGuard l(mcast_lock_);
		McGroup *g = is_up() ? find_group(mgid) : nullptr;
		if (!is_up()) {
			dropped = &stats_.tx_drop_not_up;
		} else if (!g) {
			g = new (Gfp::Atomic) McGroup(this);
			if (g) {
				bytes_copy(g->mgid, mgid, kGidLen);
				g->sendonly = true;
				g->wanted = false;
				groups_.push_back(*g);
				need_work = true;
			} else {
				dropped = &stats_.tx_drop_mcast_nomem;
			}
		}
		if (g && g->state == McGroup::State::Joined && g->ah) {
			ah = AhRef::acquire(g->ah.get());
			qkey = g->qkey;
		} else if (g && !g->queue.push(skb)) {
			dropped = &stats_.tx_drop_mcast_queue_full;
		}
	}
	if (need_work)
		schedule_work(nd_, 0);
	if (dropped)
		return drop(skb, *dropped);
	if (ah)
		send(skb, kstd::move(ah), kMulticastQpn, qkey);
}

void Interface::join(McGroup &g)
{
	// A previous membership (failed or reset) is released before joining again.
	if (g.attached) {
		kstd::ignore(qp_.detach(g.mgid, g.mlid));
		g.attached = false;
	}
	if (g.mc)
		kapi_sa_leave(kstd::exchange(g.mc, static_cast<kapi_mcast *>(nullptr)));
	kapi_mcmember req{};
	bytes_copy(req.mgid, g.mgid, kGidLen);
	bytes_copy(req.port_gid, gid_, kGidLen);
	req.pkey = pkey_;
	int copy_params = 0;
	if (g.broadcast) {
		req.join_state = kJoinFull;
	} else {
		// New groups take the broadcast group's parameters (RFC 4391 §10).
		req.join_state = g.sendonly ? kJoinSendOnlyFull : kJoinFull;
		req.qkey = bcast_rec_.qkey;
		req.mtu_selector = 2;	// exactly
		req.mtu = bcast_rec_.mtu;
		req.traffic_class = bcast_rec_.traffic_class;
		req.rate_selector = 2;
		req.rate = bcast_rec_.rate;
		req.sl = bcast_rec_.sl;
		req.flow_label = bcast_rec_.flow_label;
		req.hop_limit = bcast_rec_.hop_limit;
		copy_params = 1;
	}
	count(stats_.mcast_joins);
	kapi_mcast *mc = kapi_sa_join(ib_, port_, &req, copy_params, &g);
	kstd::SpinIrqSaveGuard l(mcast_lock_);
	if (mc) {
		g.mc = mc;
		return;
	}
	count(stats_.mcast_join_errors);
	mark_failed(g);
}

int Interface::join_done(McGroup &g, kapi_mcast *mc, int status)
{
	SkbQueue pending;
	AhRef old_ah;	// a re-join's previous AH: put after mcast_lock_ (its reaper takes paths_lock_)
	if (status == -KAPI_ENETRESET) {
		// ib_sa reset the membership on a port event (port error, LID change, client
		// re-registration, P_Key change). Our own handler saw the same event and flushes;
		// rejoining at once also covers a reset that races past that flush. Not an error:
		// the carrier and the back-off stay as they are.
		count(stats_.mcast_resets);
		{
			kstd::SpinIrqSaveGuard l(mcast_lock_);
			g.state = McGroup::State::Idle;
		}
		schedule_work(nd_, 0);
		return 0;
	}
	if (status == 0) {
		kapi_mcmember rec{};
		kapi_mcast_rec(mc, &rec);
		if (g.broadcast) {
			// RFC 4391 §5/§9.1.2: the link's Q_Key and MTU are the broadcast group's.
			bcast_rec_ = rec;
			qkey_ = rec.qkey;
			if (!kstd::ok(qp_.set_qkey(rec.qkey)))
				log_.err("cannot set Q_Key 0x%x", rec.qkey);
			if (!rx_.filled()) {
				// The buffer: the GRH area + the IB MTU (IBA 11.4.1.2).
				if (!kstd::ok(rx_.fill(ib_mtu_bytes(rec.mtu) + kGrhLen)))
					log_.err("cannot post %u receive buffers of %u bytes", rx_.size(), rx_.buf_size());
				kapi_napi_schedule(nd_);
			}
			u32 m = ud_mtu(rec.mtu);
			if (rx_.buf_size() && m > rx_.buf_size() - kGrhLen - kEncapLen)
				m = rx_.buf_size() - kGrhLen - kEncapLen;
			mcast_mtu_ = m;
			mtu_pending_ = true;
		}
		kapi_ah *kah = kapi_ah_create_mcast(pd_.get(), port_, mc);
		Ah *ah = kah ? new (Gfp::Kernel) Ah(*this, kah) : nullptr;
		if (kah && !ah)
			kapi_ah_destroy(kah);
		if (!ah) {
			count(stats_.mcast_ah_errors);
			status = -KAPI_ENOMEM;
		} else {
			bool attach_ok = true;
			if (!g.sendonly) {
				if (!kstd::ok(qp_.attach(rec.mgid, rec.mlid))) {
					count(stats_.mcast_attach_errors);
					attach_ok = false;
				}
			}
			kstd::SpinIrqSaveGuard l(mcast_lock_);
			g.attached = !g.sendonly && attach_ok;
			g.mlid = rec.mlid;
			g.qkey = rec.qkey;
			old_ah = kstd::move(g.ah);
			g.ah = AhRef::adopt(ah);
			g.state = McGroup::State::Joined;
			g.backoff_ms = 0;
			kapi_skb *skb;
			while (g.queue.pop(skb))
				if (!pending.push(skb))
					kapi_skb_free(skb);
		}
	}
	if (status != 0) {
		count(stats_.mcast_join_errors);
		u32 delay;
		{
			kstd::SpinIrqSaveGuard l(mcast_lock_);
			mark_failed(g);
			delay = g.backoff_ms;
			kapi_skb *skb;
			while (g.queue.pop(skb)) {
				count(stats_.tx_drop_mcast_failed);
				kapi_skb_free(skb);
			}
		}
		// The carrier is left as it is: off before the first join, and on a re-join (light
		// flush) a transient failure (-EAGAIN while ib_sa refreshes its SM handle after a
		// re-registration) must not bounce the link; the back-off retries, as in-tree.
		log_.warn("%s join failed: %d, retry in %u ms", g.broadcast ? "broadcast" : "multicast", status, delay);
		schedule_work(nd_, delay);
		return 0;
	}
	requeue(pending);
	if (g.broadcast)
		schedule_work(nd_, 0);
	return 0;
}

void Interface::leave(McGroup &g)
{
	if (g.attached) {
		kstd::ignore(qp_.detach(g.mgid, g.mlid));
		g.attached = false;
	}
	if (g.mc) {
		kapi_sa_leave(kstd::exchange(g.mc, static_cast<kapi_mcast *>(nullptr)));
		count(stats_.mcast_leaves);
	}
	g.ah.reset();
	kapi_skb *skb;
	while (g.queue.pop(skb)) {
		count(stats_.tx_drop_mcast_failed);
		kapi_skb_free(skb);
	}
}

void Interface::mcast_flush()
{
	{
		kstd::SpinIrqSaveGuard l(mcast_lock_);
		bcast_ = nullptr;
	}
	for (;;) {
		McGroup *g;
		{
			kstd::SpinIrqSaveGuard l(mcast_lock_);
			g = groups_.pop_front();
		}
		if (!g)
			break;
		leave(*g);
		delete g;
	}
}

// After a port event: leave every group (the SA may have forgotten them, MLIDs may change)
// and mark them for joining again, the broadcast group first (RFC 4391 §5). A light flush
// keeps the carrier: the link is up, only memberships are being refreshed.
void Interface::mcast_restart(bool keep_carrier)
{
	if (!keep_carrier) {
		carrier_ = false;
		kapi_netdev_carrier(nd_, 0);
	}
	kstd::List<McGroup> all;
	{
		kstd::SpinIrqSaveGuard l(mcast_lock_);
		while (McGroup *g = groups_.pop_front())
			all.push_back(*g);
	}
	kstd::List<McGroup> back;
	while (McGroup *g = all.pop_front()) {
		kapi_skb *skb;
		SkbQueue keep;
		{
			kstd::SpinIrqSaveGuard l(mcast_lock_);
			while (g->queue.pop(skb))
				if (!keep.push(skb))
					kapi_skb_free(skb);
		}
		leave(*g);
		g->state = McGroup::State::Idle;
		g->backoff_ms = 0;
		g->mlid = 0;
		while (keep.pop(skb))
			if (!g->queue.push(skb))
				kapi_skb_free(skb);
		back.push_back(*g);
	}
	kstd::List<McGroup> dups;
	{
		kstd::SpinIrqSaveGuard l(mcast_lock_);
		while (McGroup *g = back.pop_front()) {
			// xmit may have created a send-only twin meanwhile: keep ours, move its queue.
			if (McGroup *twin = find_group(g->mgid)) {
				groups_.remove(*twin);
				kapi_skb *skb;
				while (twin->queue.pop(skb))
					if (!g->queue.push(skb))
						kapi_skb_free(skb);
				dups.push_back(*twin);
			}
			groups_.push_back(*g);
		}
	}
	while (McGroup *g = dups.pop_front()) {
		leave(*g);
		delete g;
	}
}

// Full-member groups follow the netdev's multicast list (ndo_set_rx_mode schedules this).
void Interface::mcast_sync_list()
{
	u8 *addrs = new (Gfp::Kernel) u8[kMaxMcList * kHwAddrLen];
	if (!addrs)
		return;
	int n = kapi_netdev_mc_list(nd_, addrs, kMaxMcList, int(kHwAddrLen));
	kstd::List<McGroup> old;
	{
		kstd::SpinIrqSaveGuard l(mcast_lock_);
		for (McGroup &g : groups_)
			if (!g.broadcast && !g.sendonly)
				g.wanted = false;
	}
	HwAddr bcast = make_broadcast_addr(pkey_, 2);
	for (int i = 0; i < n; i++) {
		const u8 *addr = addrs + i * kHwAddrLen;
		if (!mcast_addr_valid(addr, bcast.b))
			continue;
		u8 mgid[kGidLen];
		bytes_copy(mgid, addr + 4, kGidLen);
		McGroup *fresh = nullptr;
		{
			kstd::SpinIrqSaveGuard l(mcast_lock_);
			McGroup *g = find_group(mgid);
			if (g && !g->sendonly) {
				g->wanted = true;
				continue;
			}
		}
		// umcast: a group some other SA client on this port (userspace) joined is theirs.
		if (umcast() && kapi_sa_mcmember_known(ib_, port_, mgid) == 0)
			continue;
		fresh = new (Gfp::Kernel) McGroup(this);
		if (!fresh)
			continue;
		bytes_copy(fresh->mgid, mgid, kGidLen);
		kstd::SpinIrqSaveGuard l(mcast_lock_);
		McGroup *g = find_group(mgid);
		if (g && g->sendonly) {
			// Upgrade: leave the send-only membership, join as a full member.
			groups_.remove(*g);
			old.push_back(*g);
			kapi_skb *skb;
			while (g->queue.pop(skb))
				if (!fresh->queue.push(skb))
					kapi_skb_free(skb);
		} else if (g) {
			g->wanted = true;
			delete fresh;
			continue;
		}
		groups_.push_back(*fresh);
	}
	delete[] addrs;
	while (McGroup *g = old.pop_front()) {
		leave(*g);
		delete g;
	}
}

void Interface::mcast_work()
{
	McGroup *b;
	{
		kstd::SpinIrqSaveGuard l(mcast_lock_);
		b = bcast_;
	}
	if (!b)
		return;
	u64 now = kapi_now_ms();
	if (b->state == McGroup::State::Idle || (b->state == McGroup::State::Failed && now >= b->retry_at)) {
		{
			kstd::SpinIrqSaveGuard l(mcast_lock_);
			b->state = McGroup::State::Joining;
		}
		join(*b);
		if (b->state == McGroup::State::Failed)
			schedule_work(nd_, b->backoff_ms);
		return;
	}
	if (b->state == McGroup::State::Failed) {
		// Woken early by someone else: keep the broadcast retry armed.
		schedule_work(nd_, unsigned(b->retry_at - now));
		return;
	}
	if (b->state != McGroup::State::Joined)
		return;
	if (mtu_pending_) {
		int rc = kapi_netdev_set_mtu_trylock(nd_, mcast_mtu_);
		if (rc == -KAPI_EAGAIN) {
			schedule_work(nd_, 10);
			return;
		}
		if (rc)
			log_.warn("cannot set MTU %u: %d", mcast_mtu_, rc);
		kapi_netdev_set_max_mtu(nd_, mcast_mtu_);
		mtu_pending_ = false;
	}
	if (!carrier_) {
		carrier_ = true;
		kapi_netdev_carrier(nd_, 1);
		log_.info("joined the broadcast group: Q_Key 0x%x, MTU %u, carrier on", qkey_, mcast_mtu_);
	}
	mcast_sync_list();
	u64 next_retry = 0;
	for (;;) {
		McGroup *act = nullptr;
		bool do_leave = false;
		now = kapi_now_ms();
		{
			kstd::SpinIrqSaveGuard l(mcast_lock_);
			for (McGroup &g : groups_) {
				if (!g.broadcast && !g.sendonly && !g.wanted) {
					groups_.remove(g);
					act = &g;
					do_leave = true;
					break;
				}
				if (g.state == McGroup::State::Idle ||
				    (g.state == McGroup::State::Failed && now >= g.retry_at)) {
					g.state = McGroup::State::Joining;
					act = &g;
					break;
				}
				if (g.state == McGroup::State::Failed && (!next_retry || g.retry_at < next_retry))
					next_retry = g.retry_at;
			}
		}
		if (!act)
			break;
		if (do_leave) {
			leave(*act);
			delete act;
		} else {
			join(*act);
		}
	}
	if (next_retry)
		schedule_work(nd_, unsigned(next_retry > now ? next_retry - now : 1));
}

} // namespace ipoib
