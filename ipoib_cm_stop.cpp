// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_stop.cpp - the end of an interface's connected-mode part (ipoib_cm.h): interface
// stop (the connections closed with their fences, bounded; what is left keeps its QP in error
// until the next open) and teardown (ForceDestroy, bounded: past the bound teardown reaps what
// its work items did not destroy), docs/connected.md §4.
#include "ipoib_cm.h"
#include "ipoib_if.h"

namespace ipoib {

namespace {

// The next connection listed that this pass (a fresh CmTable::reap_pass_) has not visited,
// marked visited; nullptr once every one listed has been. The callers log or reap each one
// without the lock, and the list may change meanwhile (a Destroy unlinks): a mark on the
// connection, not a position in the list, keeps the walk valid across the unlocks.
Connection *next_unvisited(kstd::SpinLock &lock, kstd::List<Connection> &conns, u32 pass)
{
	kstd::SpinIrqSaveGuard g(lock);
	for (Connection &x : conns) {
		if (x.reap_pass != pass) {
			x.reap_pass = pass;
			return &x;
		}
	}
	return nullptr;
}

} // namespace

// ---- interface stop (docs/connected.md §4 "ForceDestroy")

void CmTable::stop_begin()
{
	if (!house_)
		return;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		__atomic_store_n(&open_, false, __ATOMIC_RELEASE);	// no new connections from xmit or REQs
	}
	for (kapi_cm_id *&l : listen_)
		if (l)
			kapi_cm_id_destroy(kstd::exchange(l, static_cast<kapi_cm_id *>(nullptr)));
	kapi_dwork_cancel(house_);
	if (flush_)
		kapi_dwork_cancel(flush_);	// open_ is false: a later run flushes nothing
	{
		kstd::SpinIrqSaveGuard g(lock_);
		house_due_ = ~0ull;	// not scheduled: open()'s kick must not be skipped
	}
	// The graceful waits of the closes (docs/connected.md §4) run side by side, each up to
	// its own bound, but none beyond this cut: the rest of stop's bound is the fences'
	// (QpToErr and the drain with NAPI still on), so what stop_end keeps is in error.
	const u64 start = kapi_now_ms();
	__atomic_store_n(&waits_cut_, start + kCmStopWaitMs - kCmStopFenceMs, __ATOMIC_RELEASE);
	{
		FeedNotes notes(log());	// printed after the unlock (ipoib_cm_notes.h)
		kstd::SpinIrqSaveGuard g(lock_);
		for (Connection &c : conns_)
			c.feed(cm::Event::of(cm::Ev::Close), notes);
	}
	// The fences need NAPI, still on: wait for them, bounded. The housekeeping work is off:
	// the waits' deadlines are this loop's.
	while (kapi_now_ms() - start < kCmStopWaitMs) {
		{
			kstd::SpinIrqSaveGuard g(lock_);
			if (conns_.empty())
				break;
		}
		resume_due_waits(kapi_now_ms());
		kapi_msleep(10);
	}
	log_stuck("stop");
}

// What the connections still listed wait for, one line each (a few): their fence, a parked
// wait, or a work item inside an action. Called where nothing frees them meanwhile (the
// housekeeping work is cancelled; retired ones go to dead_, freed by stop_end/teardown).
void CmTable::log_stuck(const char *when)
{
	const u32 pass = ++reap_pass_;
	const u64 now = kapi_now_ms();
	for (u32 n = 0; n < kCmStuckLogMax; n++) {
		Connection *c = next_unvisited(lock_, conns_, pass);
		if (!c)
			return;
		c->log_stuck(when, now);
	}
}

void CmTable::stop_end()
{
	if (!house_)
		return;
	// NAPI is off. A connection whose fence is still open keeps its QP, in error, and stays
	// in draining: destroying it now would leave its completions in the receive CQ, which
	// lives on to the next open, whose NAPI would then read a CQE of a freed QP
	// (docs/connected.md §4). That NAPI polls them instead, the fence completes and Destroy
	// follows as usual; only teardown (the CQ goes next, never polled again) forces them.
	// Such a connection is nobody's send path (Close unpublished it) and no longer belongs
	// to a neighbour: the neighbours go now.
	u32 left = 0, leaked = 0;
	kstd::List<CmPeer> peers;
	kapi_netdev_xmit_lock(netdev());	// xmit finds peers without the table lock (CmPeerIndex)
	{
		kstd::SpinIrqSaveGuard g(lock_);
		for (Connection &c : conns_) {
			c.owner = nullptr;
			left++;
		}
		while (CmPeer *p = peers_.pop_front())
			peers.push_back(*p);
		index_.clear();
		backlogged_.clear();
		conn_waiters_.clear();
		ident_clear();	// the peers go, their proofs and echoes with them
		// Exact, not reset: the sends of the connections kept here still complete (their
		// QPs flush them) or are freed by ForceDestroy, and both release their slots. With
		// none kept, anything left is a leak (it would hold the shared queue): logged.
		leaked = left ? 0 : budget_.inflight();
		if (leaked)
			budget_.reset();
	}
	kapi_netdev_xmit_unlock(netdev());
	if (leaked)
		log().warn("%u RC send slot(s) still reserved at stop with no connection left: released", leaked);
	if (left)
		log().warn("%u connection(s) still draining at stop: kept with their QPs in error until their fences complete after the next open (or teardown)",
			   left);
	free_dead();
	u64 dropped = 0;	// packets that waited for a connection (counted cm_tx_drop_teardown)
	while (CmPeer *p = peers.pop_front()) {
		kapi_skb *skb;
		while (p->pending.pop(skb)) {
			kapi_skb_free(skb);
			dropped++;
		}
		count(ifs_.cm_peers_freed);	// the peer bound counts entries added less freed
		delete p;
	}
	if (dropped)
		count(ifs_.cm_tx_drop_teardown, dropped);
}

// Teardown, after the last stop (NAPI off, the CQ destroyed right after us): the housekeeping
// work goes first (it frees destroyed connections, and the ones this waits for must stay
// allocated while it looks at them), the connections still draining are destroyed without
// their fence (ForceDestroy; nothing polls the CQ again), then the SRQ the work re-armed.
void CmTable::teardown()
{
	if (house_) {
		// Under the lock, as kick_house checks and schedules: a retire or
		// NAPI pass that read house_on_ before this has scheduled it already, and the
		// cancel below waits for that; none can schedule it after.
		{
			kstd::SpinIrqSaveGuard g(lock_);
			house_on_ = false;
		}
		kapi_dwork_cancel(house_);
		if (flush_)
			kapi_dwork_cancel(flush_);
	}
	u32 left = 0;
	const u64 dropped_before = read_stat(ifs_.cm_tx_drop_teardown);
	__atomic_store_n(&waits_cut_, 0ull, __ATOMIC_RELEASE);	// a parked wait resumes at once
	{
		FeedNotes notes(log());	// printed after the unlock (ipoib_cm_notes.h)
		kstd::SpinIrqSaveGuard g(lock_);
		for (Connection &c : conns_) {
			c.feed(cm::Event::of(cm::Ev::ForceDestroy), notes);
			c.resume_if_due(0);
			left++;
		}
	}
	if (left)
		log().warn("%u connection(s) still draining at teardown: destroyed without their fence (counted: cm_forced_destroys)",
			   left);
	// Their work items run the Destroys. One that does not within the bound (its Destroy
	// was never queued or never ran: a lost step, an item that is not requeued) is not
	// waited for: teardown runs it (reap_stuck). Only a work item inside an action is
	// waited for, without a bound: it runs our code and touches the connection, the CQ
	// and the table, so neither may be freed nor the module unloaded under it; it is
	// logged every kCmTeardownLogMs with the action it is inside.
	const u64 start = kapi_now_ms();
	u64 next_log = 0;
	bool first = true;
	for (;;) {
		{
			kstd::SpinIrqSaveGuard g(lock_);
			if (conns_.empty())
				break;
		}
		const u64 now = kapi_now_ms();
		if (now - start >= kCmTeardownWaitMs) {
			const bool log_now = now >= next_log;
			if (log_now)
				next_log = now + kCmTeardownLogMs;
			const u32 busy = reap_stuck(now, log_now, first);
			first = false;
			if (!busy)
				continue;	// every one destroyed: the loop ends
		}
		kapi_msleep(10);
	}
	// The counters go with the interface: the sends ForceDestroy dropped are logged too.
	if (const u64 n = read_stat(ifs_.cm_tx_drop_teardown) - dropped_before)
		log().warn("%llu RC send(s) of connections destroyed without their fence dropped (counted: cm_tx_drop_teardown)",
			   (unsigned long long)n);
	free_dead();
	srq_.destroy();
	srq_ring_.release();
	if (house_)
		kapi_dwork_free(kstd::exchange(house_, static_cast<kapi_dwork *>(nullptr)));
	if (flush_)
		kapi_dwork_free(kstd::exchange(flush_, static_cast<kapi_dwork *>(nullptr)));
	if (wq_)
		kapi_wq_destroy(kstd::exchange(wq_, static_cast<kapi_wq *>(nullptr)));
}

// Teardown past its bound: each connection still listed is reaped (Connection::reap): its
// work item cancelled and its Destroy run here, unless the item is inside an action. The
// connections stay allocated meanwhile (free_dead runs only in teardown now). Returns how many
// are still there because their work item is busy. log: one line each (a few), first: the
// summary line too.
u32 CmTable::reap_stuck(u64 now, bool log_each, bool first)
{
	const u32 pass = ++reap_pass_;
	u32 busy = 0, reaped = 0, logged = 0;
	for (;;) {
		Connection *c = next_unvisited(lock_, conns_, pass);
		if (!c)
			break;
		if (log_each && logged < kCmStuckLogMax) {
			c->log_stuck("teardown", now);
			logged++;
		}
		switch (c->reap()) {
		case Connection::Reap::Reaped:
			count(ifs_.cm_teardown_reaped);
			reaped++;
			break;
		case Connection::Reap::Destroyed:
			break;
		case Connection::Reap::Busy:
			busy++;
			break;
		}
	}
	if (first || (log_each && busy))
		log().warn("connections not destroyed %u ms after ForceDestroy: %u destroyed here (counted: cm_teardown_reaped), %u waited for (their work item is inside an action)",
			   kCmTeardownWaitMs, reaped, busy);
	return busy;
}

} // namespace ipoib
