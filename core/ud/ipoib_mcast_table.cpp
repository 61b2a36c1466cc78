// SPDX-License-Identifier: GPL-2.0
// ipoib_mcast_table.cpp - the multicast group table (ipoib_mcast_table.h).
#include "core/ud/ipoib_mcast_table.h"
#include "core/ipoib_hold.h"

namespace {

// The RCU callback (softirq): the group is off the list and left (no SA membership, no AH,
// no queued skb), and no xmit can still be looking at it.
extern "C" void ipoib_mcast_rcu_free(kapi_rcu_head *head) noexcept
{
	delete &kstd::rcu_owner<ipoib::McGroup>(head);
}

} // namespace

namespace ipoib {

u32 move_queue(SkbQueue &q, SkbQueue &to)
{
	u32 freed = 0;
	kapi_skb *skb;
	while (q.pop(skb))
		if (!to.push(skb)) {
			kapi_skb_free(skb);
			freed++;
		}
	return freed;
}

McGroup *McastTable::find(const u8 *mgid)
{
	// The MGID is written before the group is linked and never changes while it is.
	return groups_.find([mgid](const McGroup &g) { return bytes_equal(g.mgid, mgid, kGidLen); });
}

void McastTable::unlink(McGroup &g)
{
	groups_.remove(g);
	g.unpublish();
}

void McastTable::retire(McGroup &g)
{
	KSTD_WARN_ON(kstd::RcuList<McGroup>::linked(g));
	kstd::free_after_grace(g, ipoib_mcast_rcu_free);
}

McastTable::Lookup McastTable::for_send(Interface *owner, const u8 *mgid, kapi_skb *skb, Ah *&ah, u32 &qkey)
{
	{
		// Fast path: a joined group, no lock. The AH read here lives on after the read
		// section by the last-send rule (ipoib_ah.h), the Q_Key is a copy.
		kstd::RcuReadGuard r;
		if (McGroup *g = find(mgid)) {
			if (Ah *a = g->published_ah()) {
				ah = a;
				qkey = g->published_qkey();
				return Lookup::Send;
			}
		}
	}
	// Not joined (or not found, or a writer was moving it): decided under the lock. The skb
	// will most likely wait for the join: a control socket's gives its socket's send buffer
	// back first, before the lock (ipoib_hold.h).
	hold_uncharge(skb);
	kstd::SpinIrqSaveGuard l(lock_);
	McGroup *g = find(mgid);
	Lookup created = Lookup::Queued;
	if (!g) {
		// RFC 4391 §10: a group we only send to is joined as a send-only member.
		g = new (kstd::Gfp::Atomic) McGroup(owner);
		if (!g)
			return Lookup::NoMem;
		bytes_copy(g->mgid, mgid, kGidLen);
		g->sendonly = true;
		g->wanted = false;
		groups_.push_back(*g);
		created = Lookup::NewGroup;
	}
	if (g->state == McGroup::State::Joined && g->ah) {
		ah = g->ah.get();	// no reference: the last-send rule (ipoib_ah.h)
		qkey = g->qkey;
		return Lookup::Send;
	}
	if (!g->queue.push(skb))
		return created == Lookup::NewGroup ? Lookup::NewGroup : Lookup::QueueFull;
	return created;
}

void McastTable::add_broadcast(McGroup &b)
{
	kstd::SpinIrqSaveGuard l(lock_);
	groups_.push_front(b);
	bcast_ = &b;
}

McGroup *McastTable::broadcast()
{
	kstd::SpinIrqSaveGuard l(lock_);
	return bcast_;
}

McGroup::State McastTable::state(const McGroup &g)
{
	kstd::SpinIrqSaveGuard l(lock_);
	return g.state;
}

void McastTable::set_state(McGroup &g, McGroup::State s)
{
	kstd::SpinIrqSaveGuard l(lock_);
	g.state = s;
	g.publish();
}

McastTable::Snapshot McastTable::snapshot(const McGroup &g)
{
	kstd::SpinIrqSaveGuard l(lock_);
	return Snapshot{g.state, g.retry_at, g.backoff_ms};
}

void McastTable::unpublish(McGroup &g)
{
	kstd::SpinIrqSaveGuard l(lock_);
	g.unpublish();
}

void McastTable::forget_broadcast()
{
	kstd::SpinIrqSaveGuard l(lock_);
	bcast_ = nullptr;
}

McGroup *McastTable::pop()
{
	kstd::SpinIrqSaveGuard l(lock_);
	McGroup *g = groups_.front();
	if (g)
		unlink(*g);
	return g;
}

void McastTable::take_all(kstd::List<McGroup> &out)
{
	kstd::SpinIrqSaveGuard l(lock_);
	while (McGroup *g = groups_.front()) {
		unlink(*g);
		out.push_back(*g);
	}
}

void McastTable::put_back(kstd::List<McGroup> &back, kstd::List<McGroup> &dups)
{
	kstd::SpinIrqSaveGuard l(lock_);
	while (McGroup *g = back.pop_front()) {
		// xmit may have created a send-only twin meanwhile: keep ours, move its queue.
		if (McGroup *twin = find(g->mgid)) {
			unlink(*twin);
			move_queue(twin->queue, g->queue);
			dups.push_back(*twin);
		}
		groups_.push_back(*g);
	}
}

void McastTable::take_queue(McGroup &g, SkbQueue &out)
{
	kstd::SpinIrqSaveGuard l(lock_);
	move_queue(g.queue, out);
}

void McastTable::unmark_full_members()
{
	kstd::SpinIrqSaveGuard l(lock_);
	for (McGroup &g : groups_)
		if (!g.broadcast && !g.sendonly)
			g.wanted = false;
}

bool McastTable::mark_wanted(const u8 *mgid)
{
	kstd::SpinIrqSaveGuard l(lock_);
	McGroup *g = find(mgid);
	if (!g || g->sendonly)
		return false;
	g->wanted = true;
	return true;
}

void McastTable::insert_full(McGroup &fresh, kstd::List<McGroup> &old)
{
	kstd::SpinIrqSaveGuard l(lock_);
	McGroup *g = find(fresh.mgid);
	if (g && g->sendonly) {
		// Upgrade: the send-only membership is left, the group joined as a full member.
		unlink(*g);
		old.push_back(*g);
		move_queue(g->queue, fresh.queue);
	} else if (g) {
		// Raced with another insert: keep that one.
		g->wanted = true;
		old.push_back(fresh);
		return;
	}
	groups_.push_back(fresh);
}

McGroup *McastTable::next_action(u64 now, bool &leave, u64 &next_retry)
{
	kstd::SpinIrqSaveGuard l(lock_);
	leave = false;
	for (McGroup &g : groups_) {
		if (!g.broadcast && !g.sendonly && !g.wanted) {
			unlink(g);
			leave = true;
			return &g;
		}
		if (g.state == McGroup::State::Idle || (g.state == McGroup::State::Failed && now >= g.retry_at)) {
			g.state = McGroup::State::Joining;
			g.publish();
			return &g;
		}
		if (g.state == McGroup::State::Failed && (!next_retry || g.retry_at < next_retry))
			next_retry = g.retry_at;
	}
	return nullptr;
}

} // namespace ipoib
