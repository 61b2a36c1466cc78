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

// Exponential back-off of failed joins: 1, 2, 4, 8, 16, 16... s. Caller holds the table lock.
void mark_failed(McGroup &g)
{
	g.state = McGroup::State::Failed;
	g.publish();
	u32 next = g.backoff_ms * 2;
	g.backoff_ms = !g.backoff_ms ? kMinBackoffMs : (next > kMaxBackoffMs ? kMaxBackoffMs : next);
	g.retry_at = kapi_now_ms() + g.backoff_ms;
}

} // namespace

void Interface::send_multicast(kapi_skb *skb, const u8 *mgid)
{
	if (!is_up())
		return drop(skb, stats_.tx_drop_not_up);
	Ah *ah = nullptr;
	u32 qkey = 0;
	switch (mcast_.for_send(this, mgid, skb, ah, qkey)) {
	case McastTable::Lookup::Send:
		return send(skb, *ah, kMulticastQpn, qkey);
	case McastTable::Lookup::NewGroup:
		schedule_work(nd(), 0);	// join it (send-only)
		return;
	case McastTable::Lookup::Queued:
		return;
	case McastTable::Lookup::QueueFull:
		return drop(skb, stats_.tx_drop_mcast_queue_full);
	case McastTable::Lookup::NoMem:
		return drop(skb, stats_.tx_drop_mcast_nomem);
	}
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
		req.qkey = qp_.qkey();	// the link's (the broadcast group's)
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
	kstd::SpinIrqSaveGuard l(mcast_.lock());
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
	AhRef old_ah;	// a re-join's previous AH: put after the table lock
	if (status == -KAPI_ENETRESET) {
		// ib_sa reset the membership on a port event (port error, LID change, client
		// re-registration, P_Key change). Our own handler saw the same event and flushes;
		// rejoining at once also covers a reset that races past that flush. Not an error:
		// the carrier and the back-off stay as they are.
		count(stats_.mcast_resets);
		mcast_.set_state(g, McGroup::State::Idle);
		schedule_work(nd(), 0);
		return 0;
	}
	if (status == 0) {
		kapi_mcmember rec{};
		kapi_mcast_rec(mc, &rec);
		if (g.broadcast) {
			// RFC 4391 §5/§9.1.2: the link's Q_Key and MTU are the broadcast group's.
			bcast_rec_ = rec;
			if (!kstd::ok(qp_.set_qkey(rec.qkey)))	// the link's Q_Key's one owner
				log_.err("cannot set Q_Key 0x%x", rec.qkey);
			if (!rx_.filled()) {
				// The buffer: the GRH area + the IB MTU (IBA 11.4.1.2). NAPI, the ring's one
				// consumer, posts them (and retries what a failed fill left empty).
				rx_.want_fill(ib_mtu_bytes(rec.mtu) + kGrhLen);
				kapi_napi_schedule(nd());
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
			kstd::SpinIrqSaveGuard l(mcast_.lock());
			g.attached = !g.sendonly && attach_ok;
			g.mlid = rec.mlid;
			__atomic_store_n(&g.qkey, rec.qkey, __ATOMIC_RELAXED);	// xmit reads it lockless
			old_ah = kstd::move(g.ah);
			g.ah = AhRef::adopt(ah);
			g.state = McGroup::State::Joined;
			g.publish();	// after the AH and Q_Key: xmit may send on it from here
			g.backoff_ms = 0;
			move_queue(g.queue, pending);
		}
	}
	if (status != 0) {
		count(stats_.mcast_join_errors);
		u32 delay;
		{
			kstd::SpinIrqSaveGuard l(mcast_.lock());
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
		schedule_work(nd(), delay);
		return 0;
	}
	requeue(pending);
	if (g.broadcast)
		schedule_work(nd(), 0);
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
	mcast_.unpublish(g);	// before the put: see McGroup::publish
	g.ah.reset();
	kapi_skb *skb;
	while (g.queue.pop(skb)) {
		count(stats_.tx_drop_mcast_failed);
		kapi_skb_free(skb);
	}
}

void Interface::mcast_flush()
{
	mcast_.forget_broadcast();
	while (McGroup *g = mcast_.pop()) {
		leave(*g);
		McastTable::retire(*g);
	}
}

// After a port event: leave every group (the SA may have forgotten them, MLIDs may change)
// and mark them for joining again, the broadcast group first (RFC 4391 §5). A light flush
// keeps the carrier: the link is up, only memberships are being refreshed.
void Interface::mcast_restart(bool keep_carrier)
{
	if (!keep_carrier) {
		carrier_ = false;
		kapi_netdev_carrier(nd(), 0);
	}
	kstd::List<McGroup> all;
	mcast_.take_all(all);
	kstd::List<McGroup> back;
	while (McGroup *g = all.pop_front()) {
		SkbQueue keep;
		mcast_.take_queue(*g, keep);
		leave(*g);
		g->state = McGroup::State::Idle;
		g->backoff_ms = 0;
		g->mlid = 0;
		move_queue(keep, g->queue);
		back.push_back(*g);
	}
	kstd::List<McGroup> dups;
	mcast_.put_back(back, dups);
	while (McGroup *g = dups.pop_front()) {
		leave(*g);
		McastTable::retire(*g);
	}
}

// Full-member groups follow the netdev's multicast list (ndo_set_rx_mode schedules this).
void Interface::mcast_sync_list()
{
	u8 *addrs = new (Gfp::Kernel) u8[kMaxMcList * kHwAddrLen];
	if (!addrs)
		return;
	int n = kapi_netdev_mc_list(nd(), addrs, kMaxMcList, int(kHwAddrLen));
	kstd::List<McGroup> old;
	mcast_.unmark_full_members();
	HwAddr bcast = make_broadcast_addr(pkey_, 2);
	for (int i = 0; i < n; i++) {
		const u8 *addr = addrs + i * kHwAddrLen;
		if (!mcast_addr_valid(addr, bcast.b))
			continue;
		u8 mgid[kGidLen];
		bytes_copy(mgid, addr + 4, kGidLen);
		if (mcast_.mark_wanted(mgid))
			continue;
		// umcast: a group some other SA client on this port (userspace) joined is theirs.
		if (umcast() && kapi_sa_mcmember_known(ib_, port_, mgid) == 0)
			continue;
		McGroup *fresh = new (Gfp::Kernel) McGroup(this);
		if (!fresh)
			continue;
		bytes_copy(fresh->mgid, mgid, kGidLen);
		mcast_.insert_full(*fresh, old);
	}
	delete[] addrs;
	while (McGroup *g = old.pop_front()) {
		leave(*g);
		McastTable::retire(*g);
	}
}

void Interface::mcast_work()
{
	McGroup *b = mcast_.broadcast();
	if (!b)
		return;
	u64 now = kapi_now_ms();
	// The SA callback (join_done) writes these under the table lock: copies, never reads
	// of the live fields.
	const McastTable::Snapshot bs = mcast_.snapshot(*b);
	if (bs.state == McGroup::State::Idle || (bs.state == McGroup::State::Failed && now >= bs.retry_at)) {
		mcast_.set_state(*b, McGroup::State::Joining);
		join(*b);
		// join_done may already have run (and changed the state) from inside join.
		const McastTable::Snapshot after = mcast_.snapshot(*b);
		if (after.state == McGroup::State::Failed)
			schedule_work(nd(), after.backoff_ms);
		return;
	}
	if (bs.state == McGroup::State::Failed) {
		// Woken early by someone else: keep the broadcast retry armed.
		schedule_work(nd(), unsigned(bs.retry_at - now));
		return;
	}
	if (bs.state != McGroup::State::Joined)
		return;
	if (mtu_pending_) {
		// Under rtnl, so the admin mode cannot change between the decision and the MTU.
		if (!kapi_rtnl_trylock()) {
			schedule_work(nd(), 10);
			return;
		}
		join_mtu();
		kapi_rtnl_unlock();
		mtu_pending_ = false;
	}
	if (!carrier_ && !ud_repair_.carrier_held()) {	// held: the UD QP repair gave up
		carrier_ = true;
		kapi_netdev_carrier(nd(), 1);
		log_.info("joined the broadcast group: Q_Key 0x%x, MTU %u, carrier on", qp_.qkey(), mcast_mtu_);
	}
	mcast_sync_list();
	u64 next_retry = 0;
	for (;;) {
		bool do_leave = false;
		now = kapi_now_ms();
		McGroup *act = mcast_.next_action(now, do_leave, next_retry);
		if (!act)
			break;
		if (do_leave) {
			leave(*act);
			McastTable::retire(*act);
		} else {
			join(*act);
		}
	}
	if (next_retry)
		schedule_work(nd(), unsigned(next_retry > now ? next_retry - now : 1));
}

} // namespace ipoib
