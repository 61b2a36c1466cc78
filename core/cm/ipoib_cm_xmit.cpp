// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_xmit.cpp - connected mode's send path (ipoib_cm.h): xmit's choice between a
// peer's RC send path, its pending queue and UD, the RC send bounds (reserved before the
// post; at them only the peer's own queue waits, never the netdev queue), and what RC adds to
// rtnl_link_stats64.
#include "core/cm/ipoib_cm_send_clock.h"
#include "ipoib_cm.h"
#include "core/ipoib_hold.h"
#include "ipoib_if.h"

namespace ipoib {

// ---- xmit

// The peer's connection can still carry its queue (it has not started its teardown), or it
// has and its step still holds a decision for the peer (FallBack, Reconnect, AwaitOther) that
// has not run yet: a new connection opened in between would skip the
// back-off once, and FallBack would then send the new connection's queue over UD.
bool CmTable::may_carry(const Connection *c)
{
	if (!c)
		return false;
	// The state first: feed() changes it and counts the step's peer actions under the
	// connection's lock, so a teardown seen here has its count visible too.
	const cm::State st = c->state();
	return (st != cm::State::Draining && st != cm::State::Closed) || c->peer_action_pending();
}

// The connection may take a packet now: not in its teardown. Stricter than may_carry, which
// also holds for a draining connection whose FallBack/Reconnect is still queued: that
// one keeps xmit from opening another connection, but its QP may already be in error, so
// nothing is posted to it.
bool CmTable::may_send(const Connection *c)
{
	if (!c)
		return false;
	const cm::State st = c->state();
	return st != cm::State::Draining && st != cm::State::Closed;
}

// No send path to the peer (p: nullptr if unknown): the packet may wait for a connection or a
// path record. A control socket's packet (ICMP replies, TCP resets) gives its socket's send
// buffer back first and stays this host's (ipoib_hold.h); the queues' bounds (64 per peer, 4
// per path) keep what waits bounded. Before the table lock (no socket callback with
// interrupts off); a packet the peer's UD back-off sends at once keeps its charge.
namespace {
void uncharge_to_wait(const CmPeer *p, kapi_skb *skb, u64 now)
{
	if (p && now < __atomic_load_n(&p->fallback_until, __ATOMIC_RELAXED))
		return;
	hold_uncharge(skb);
}
} // namespace

CmTable::Verdict CmTable::xmit(kapi_skb *skb, const HwAddr &dst, u64 now)
{
	HwAddr key = dst;
	key.b[0] = 0;
	// The common case without the table lock (CmPeerIndex): the peer has a send path
	// that can carry. Both are stable here: p->send is written only under the tx queue's
	// xmit lock we hold (publish, stop_sending: kapi_netdev_xmit_lock, which every xmit
	// holds whatever the root qdisc, noqueue and netpoll included), and peers
	// are unlinked and freed only under it too (housekeeping, stop_end); a peer inserted meanwhile (on_req) is complete before it is
	// linked (CmPeerIndex). The order against packets that wait (the peer's own, and other
	// peers' stopped at the RC bound) is cm_xmit_rc's (send_rc).
	if (__atomic_load_n(&open_, __ATOMIC_ACQUIRE) && connected()) {
		CmPeer *p = find(key);
		if (p && may_send(p->send)) {
			__atomic_store_n(&p->used_ms, now, __ATOMIC_RELAXED);
			return send_rc(*p, skb, now);
		}
		uncharge_to_wait(p, skb, now);
	}
	CmPeer *send = nullptr;
	{
		FeedNotes notes(log());	// connect()'s, printed after the unlock (ipoib_cm_notes.h)
		kstd::SpinIrqSaveGuard g(lock_);
		// the mode is read again here: mode_changed(false) requeues what waits under lock_
		if (!open_ || !__atomic_load_n(&connected_, __ATOMIC_RELAXED))
			return Verdict::UseUd;
		CmPeer *p = find(key);
		if (!p) {
			// The REQ needs the path record: until it is resolved the packet takes the UD
			// path, which queries it; its requeue after the answer comes back here.
			if (!ifc_.path_resolved(dst))
				return Verdict::UseUd;
			p = find_or_add(key, Gfp::Atomic);
			if (!p) {
				// Not a drop: the UD path carries it (so not cm_tx_drop_nomem,
				// nor in tx_dropped).
				count(ifs_.cm_tx_nomem_ud);
				return Verdict::UseUd;
			}
		}
		p->used_ms = now;
		if (may_send(p->send)) {
			// Published meanwhile: send_rc queues behind what waits,
			// never ahead of it over UD (the queue-full case below would reorder).
			send = p;
		} else if (p->fallback_until && now < p->fallback_until) {
			count(ifs_.cm_tx_fallback_ud);
			return Verdict::UseUd;
		} else {
			if (p->await_until && now >= p->await_until) {
				count(ifs_.cm_await_expired);	// the peer's crossing REQ never came
				p->await_until = 0;
			}
			// p->send set here: its error teardown has begun and its StopSending (which
			// hands the queue on) has not run yet; queue, never post to a QP in error.
			if (p->send)
				count(ifs_.cm_tx_held_draining);
			// A connection accepted from a bidirectional peer will carry our packets too
			// once established (its StartSending sends this queue): no second one. One
			// that is draining (the peer closed it, or ours is being torn down) never
			// will: the queue would only wait for its fence and overflow, so a new
			// connection replaces it as the peer's active one. (An established one that
			// offered would be p->send: stop_sending hands the slot on.)
			// An unproven one (p->proving) holds us back only while its proof is open
			// (ipoib_cm_ident.cpp): a forged REQ never stops us connecting ourselves.
			const bool passive_will_send =
				(may_carry(p->passive) && p->passive->bidir()) || proof_holds(*p, now);
			if (!may_carry(p->active) && !p->await_until && !passive_will_send) {
				if (!ifc_.path_resolved(dst))
					return Verdict::UseUd;
				if (!connect(*p, now, Gfp::Atomic, notes))
					return Verdict::UseUd;
			}
			if (p->pending.push(skb)) {
				count(ifs_.cm_tx_queued);
				return Verdict::Done;
			}
			// The queue is full (a burst while the connection is set up): a packet the
			// UD path carries goes there, ahead of the queue, rather than being lost;
			// a larger one is dropped (ICMP from the UD path would lower the route's
			// PMTU for a transient condition).
			if (kapi_skb_len(skb) <= u32(kPseudoLen) + ifc_.mcast_mtu_ + u32(kEncapLen)) {
				count(ifs_.cm_tx_overflow_ud);
				return Verdict::UseUd;
			}
			count(ifs_.cm_tx_drop_queue_full);
			kapi_skb_free(skb);
			return Verdict::Done;
		}
	}
	return send_rc(*send, skb, now);	// p lives: peers are freed only under the xmit lock we hold
}

// Outside the table lock: p's send path lives until QuiesceTx, which waits for us, and
// p->send changes only under the xmit lock we hold. The backlog of other peers goes first,
// then this packet, or it waits behind p's (cm_xmit_rc).
CmTable::Verdict CmTable::send_rc(CmPeer &p, kapi_skb *skb, u64 now)
{
	// A control socket's packet may wait here too (p's queue behind its connection's bound,
	// the reserve or the interface's), for as long as the peer takes to complete sends: it
	// gives its send buffer back now (ipoib_hold.h). It stays this host's, so one above the
	// connection's MTU is still answered with an ICMP to the local stack (Connection::send).
	hold_uncharge(skb);
	RcOrder x{*this, now};
	switch (cm_xmit_rc(x, p, skb)) {
	case CmRcXmit::Sent:
		break;
	case CmRcXmit::AtBound:
		// The interface bound is full: it waits on p's queue (the backlog), not dropped,
		// and the netdev queue runs on.
		count(ifs_.cm_inflight_full);
		count(ifs_.cm_tx_queued);
		break;
	case CmRcXmit::ConnWait:	// its connection is at its own bound: only p waits
	case CmRcXmit::ReserveWait:	// ... or makes no progress and only the reserve is left
	case CmRcXmit::Queued:
		count(ifs_.cm_tx_queued);
		break;
	case CmRcXmit::Full:
		// Dropped behind p's own queue: counted for the interface and for the connection
		// (p.send: may_send held when xmit chose it, and it changes only under our lock).
		count(ifs_.cm_tx_drop_queue_full);
		p.send->count_conn_drop();
		kapi_skb_free(skb);
		break;
	}
	return Verdict::Done;
}

// Table lock held (cm_flush_peer, for each packet): p's send path may take a packet now, in
// connected mode: mode_changed drains p.pending under the xmit lock we hold, after its store
// of connected_ under lock_ (a flush begun after the switch could otherwise push its rest
// back behind that drain, and nothing would drain it again; a flush holds nothing outside
// p.pending).
bool CmTable::RcOrder::may_flush(CmPeer &p) const
{
	return may_send(p.send) && __atomic_load_n(&t.connected_, __ATOMIC_RELAXED);
}

// A slot reserved: the connection posts it (it orphans the skb first, Connection::send) or
// gives the slot back.
void CmTable::post_rc(Connection &c, kapi_skb *skb, u64 now)
{
	c.send(skb, now);
}

// Tx lock held. c's own bound first (its send ring: we are its only producer, so the room
// seen is there at the post): at it, only c's peer waits (CmSlot::ConnFull). Then the
// interface's (RcSendBudget): at it (IfFull) the peer waits in the backlog; at its reserve,
// for a connection not eligible for it (cm::reserve_eligible: its peer's lateness bar holds
// (cm::reserve_bar_after, kept on the peer across connections), its oldest outstanding send is cm::kReserveHolMs old,
// or more sends posted since its last completion than that completion's batch plus
// cm::kReserveUnacked; Reserve), on the connection waiters. The netdev queue runs on in every
// case (TxQueueRule): the slot is taken before the post, and what does not get one waits on
// its own peer's queue. An identity echo (echo) may take the reserve regardless
// (cm::reserve_may_take); both bounds hold for it too.
CmSlot CmTable::rc_reserve(Connection &c, u64 now, bool echo)
{
	if (!c.tx_room())
		return CmSlot::ConnFull;
	return budget_.take(cm::reserve_may_take(echo, c.tx_reserve_eligible(now)));
}

// NAPI: n RC sends completed. Their slots go back; a peer that waits for them is continued
// by the flush work (under the xmit lock, which NAPI must not take: netpoll polls NAPI with
// that lock held). Nothing here wakes the netdev queue: RC never stops it.
void CmTable::rc_sent(u32 n)
{
	budget_.complete(n);	// fully ordered: pairs with flush_held's fence
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	// A flush stopped at the interface bound: any freed slot lets the backlog's front go on
	// (the netdev queue no longer stops there, so there is no wake mark to wait for; the
	// flag makes it one kick per stop). xmit flushes the backlog too, before its own packet.
	if (__atomic_load_n(&backlog_, __ATOMIC_ACQUIRE) && budget_.backlog_room() &&
	    __atomic_exchange_n(&backlog_, false, __ATOMIC_ACQ_REL))
		kick_flush();
	// A peer waits on its own connection's bound or on the reserve: this completion may be
	// that connection's (its ring's tail moved before this call; conn_held's fence pairs
	// with ours) or have freed a shared slot. Which one is not known here, so the flush work
	// tries the waiters (a few, each at once).
	else if (__atomic_load_n(&conn_wait_, __ATOMIC_ACQUIRE) &&
		 __atomic_exchange_n(&conn_wait_, false, __ATOMIC_ACQ_REL))
		kick_flush();
}

// A flush stopped at the reserve (c, p's connection, makes no progress) with `fresh`
// packets left behind for the first time: counted, and the flush work asked for at the next
// RC completion (rc_sent), which may free a shared slot or be c's progress. A completion
// between the refusal and our store saw no waiter: with the fence, we see what it changed
// (the shared room it left, or c's completion: its ring's tail, credit and bar move before
// rc_sent, so c's head of line, unacknowledged count and bar are current) and ask ourselves.
// Time alone makes c eligible only when its lateness bar ends (its head of line only ages);
// that is not a completion, and the waiter goes on at the next RC completion of the
// interface (one of its own, another connection's, or the flush of a stalled one that the
// watchdog tears down) or at the next housekeeping run (kCmHousekeepMs: flush_backlogs ->
// backlog_round -> cm_flush_conn_waiters), whichever comes first.
void CmTable::reserve_held(Connection &c, u32 fresh)
{
	if (fresh) {
		count(ifs_.cm_tx_reserve_held, fresh);
		if (c.tx_reserve_barred(kapi_now_ms()))	// its peer's lateness bar (cm::reserve_barred)
			count(ifs_.cm_tx_reserve_held_late, fresh);
	}
	__atomic_store_n(&conn_wait_, true, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if ((budget_.shared_room() || c.tx_reserve_eligible(kapi_now_ms())) &&
	    __atomic_exchange_n(&conn_wait_, false, __ATOMIC_ACQ_REL))
		kick_flush();
}

void CmTable::reserve_bar_fold(CmPeer &p, Connection &c)
{
	p.reserve_bar_until = cm::reserve_bar_fold(p.reserve_bar_until, c.tx_reserve_bar());
	Connection *const others[] = {p.active, p.passive, p.proving};
	for (Connection *o : others)
		if (o && o != &c)
			o->tx_reserve_bar_at_least(p.reserve_bar_until);
}

void CmTable::reserve_bar_inherit(CmPeer &p, Connection &c)
{
	c.tx_reserve_bar_at_least(p.reserve_bar_until);
}

void CmTable::rc_destroyed(u32 n)
{
	count(ifs_.cm_tx_drop_teardown, n);
	rc_sent(n);
}

bool CmTable::path_copy(const HwAddr &peer, kapi_cm_path *out)
{
	kstd::SpinIrqSaveGuard l(ifc_.paths_.lock());
	Path *p = ifc_.paths_.find(peer.gid());
	if (!p || !p->cm_rec)
		return false;
	kapi_cm_path_copy(out, p->cm_rec);
	return true;
}


// ---- rtnl_link_stats64 (ip -s link, /sys/class/net/*/statistics)

void CmTable::add_stats64(kapi_stats64 &o) const
{
	RcStats t;
	{
		auto &self = const_cast<CmTable &>(*this);
		kstd::SpinIrqSaveGuard g(self.lock_);
		t.add(retired_st_);
		t.add(srq_st_);
		for (Connection &c : self.conns_)
			t.add(c.stats());
	}
	o.tx_packets += t.rc_tx_packets;
	o.tx_bytes += t.rc_tx_bytes;
	o.tx_errors += t.rc_tx_wc_errors + t.rc_tx_drop_post + t.rc_tx_drop_dma;
	// rc_tx_too_big is not here: the interface counts what became of those (tx_icmp_*, tx_drop_too_big).
	// cm_inflight_full is not here: such packets wait on their peer's queue.
	o.tx_dropped += t.rc_tx_drop_ring_full + t.rc_tx_drop_csum + t.rc_tx_drop_linearize +
			read_stat(ifs_.cm_tx_drop_queue_full) + read_stat(ifs_.cm_tx_drop_teardown);
	o.rx_errors += t.rc_rx_wc_errors + t.rc_rx_drop_short + t.rc_rx_drop_csum;
	o.rx_dropped += t.rc_rx_drop_nomem;
}


} // namespace ipoib
