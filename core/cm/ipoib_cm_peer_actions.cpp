// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_peer_actions.cpp - what a Connection's peer-level actions do to its peer
// (ipoib_cm.h; docs/connected.md §2): publish the send path and send the queue that
// waited for it (StartSending), hand it on (StopSending), FallBack, Reconnect, AwaitOther,
// and the end of a connection (retire, free_dead). The connection's work item runs them.
#include "ipoib_cm.h"
#include "ipoib_if.h"

namespace ipoib {

// ---- peer-level actions (the connection's work item, process context)

// The table decides which connection is the peer's send path (docs/connected.md §10). A peer may have
// two connections that may send: a crossing both ends accepted (cm_crossings_both), or a peer
// that came back from a new QP while its DREQ for our old connection was lost (ib_cm sends a
// DREQ once, core/cm.c cm_destroy_id). The first to offer is published; when it stops, the
// other one, if it offered, takes over with the queue. Otherwise the survivor would never be
// published (its StartSending already ran) and xmit would queue behind it for ever.
void CmTable::publish(CmPeer &p, Connection &c)
{
	p.send = &c;
	p.fallback_until = 0;	// backoff_ms stays: it resets once a connection delivered (fall_back)
	p.stale_retries = 0;
	p.crossing_waits = 0;
	p.await_until = 0;
}

Connection *CmTable::candidate(CmPeer &p)
{
	return cm_send_candidate(p.active, p.passive, [](const Connection *c) { return may_send(c); });
}

// The queue that waited for p's send path goes out while the RC send bound has room
// (the CQ is sized for the bound, not for 64 queued per peer). What does
// not fit stays at the front of p.pending, in order, and p joins the backlog (requeued to the
// stack it would go behind what the qdisc holds and p's newer packets would overtake it; the
// netdev queue is not stopped at the RC bound, so reordering is the reason): xmit queues p's
// newer packets behind it and flushes the backlog before any
// packet of its own, and the flush work rc_sent kicks continues it once the
// bound has room again (cm_flush_peer, cm_xmit_rc). p.pending only grows under the xmit lock
// we hold (xmit, this); the work items' FallBack and retire only take from it. p lives: peers
// are freed only under the xmit lock. The connection lives until QuiesceTx, which waits for us.
void CmTable::flush(CmPeer &p, u64 now)
{
	RcOrder x{*this, now};
	cm_flush_peer(x, p);
}

void CmTable::flush_held(u32 fresh)
{
	if (fresh)
		count(ifs_.cm_tx_flush_held, fresh);
	__atomic_store_n(&backlog_, true, __ATOMIC_RELEASE);
	// Sends completed between our refusal and the store saw no backlog: look again.
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (budget_.backlog_room() && __atomic_exchange_n(&backlog_, false, __ATOMIC_ACQ_REL))
		kick_flush();
}

// p's queue stopped at its own connection's bound (c: p's send path): counted for c, and the
// flush work asked for at c's next completion (rc_sent). A completion between c's refusal
// and our store saw no waiter: with the fence, we see its room and ask ourselves.
void CmTable::conn_held(Connection &c, u32 fresh)
{
	if (fresh)
		c.count_conn_held(fresh);
	__atomic_store_n(&conn_wait_, true, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (c.tx_room() && __atomic_exchange_n(&conn_wait_, false, __ATOMIC_ACQ_REL))
		kick_flush();
}

// The flush work (rc_sent's kick) and each housekeeping run: the backlogged peers only, a
// round in the order they began to wait (a kick does not run all of housekeeping nor walk
// every peer). A flush stopping again asks for the next kick (flush_held).
void CmTable::flush_backlogs(u64 now)
{
	ident_tick(now);	// each housekeeping run: proof deadlines and probe resends
	ident_run(now);
	backlog_round(now);
}

void CmTable::backlog_round(u64 now)
{
	kapi_netdev_xmit_lock(netdev());
	if (__atomic_load_n(&open_, __ATOMIC_ACQUIRE)) {
		RcOrder x{*this, now};
		cm_flush_backlog<CmPeer>(x);
		cm_flush_conn_waiters<CmPeer>(x);
	}
	kapi_netdev_xmit_unlock(netdev());
}

void CmTable::flush_work()
{
	const u64 now = kapi_now_ms();
	ident_run(now);		// a proof completed or an echo is due (NAPI's kick)
	backlog_round(now);
}

// Scheduled now unless teardown stopped it (house_on_, under lock_ as teardown clears it).
void CmTable::kick_flush()
{
	if (!flush_)
		return;
	kstd::SpinIrqSaveGuard g(lock_);
	if (house_on_)
		kapi_dwork_schedule(flush_, 0);
}

void CmTable::start_sending(Connection &c)
{
	CmPeer *sends = nullptr;
	const u64 now = kapi_now_ms();
	HwAddr probe_to;
	u32 probe_qpn = 0;
	u64 nonce = 0;
	// Under the tx queue's xmit lock no xmit runs (noqueue and netpoll too): the queue goes out in order before any new packet,
	// which finds the published connection once we unlock.
	kapi_netdev_xmit_lock(netdev());
	{
		kstd::SpinIrqSaveGuard g(lock_);
		c.offered = true;
		CmPeer *p = c.owner;
		// Not if c's teardown began meanwhile (an error fed after this step was queued):
		// its QP may be in error, and its FallBack is queued behind.
		// A passive one only once its peer proved its address (ipoib_cm_ident.cpp): an
		// unproven one sends the first probe now that it is established.
		if (p && !p->send && may_send(&c) && cm_publishable(&c, c.dir() == cm::Dir::Active, p->passive)) {
			publish(*p, c);
			sends = p;
		} else if (p && p->proving == &c && !p->proof.nonce && may_send(&c)) {
			p->proof.probe(now, kapi_cm_random_u64());
			probe_to = p->addr;
			probe_qpn = c.qpn();
			nonce = p->proof.nonce;
		}
	}
	if (sends)
		flush(*sends, now);
	kapi_netdev_xmit_unlock(netdev());
	if (nonce)
		send_probe(probe_to, probe_qpn, nonce);	// dev_queue_xmit: not under the xmit lock
}

// Under the tx lock, like start_sending: the successor's queue goes out before new packets.
// The successor's own StopSending takes the tx lock too, so it cannot run meanwhile (work
// items of different connections run concurrently): it offered and has not stopped, and its
// QpToErr comes only after its StopSending, so its QP is in RTS.
void CmTable::stop_sending(Connection &c)
{
	CmPeer *sends = nullptr;
	const u64 now = kapi_now_ms();
	kapi_netdev_xmit_lock(netdev());
	{
		kstd::SpinIrqSaveGuard g(lock_);
		c.offered = false;
		CmPeer *p = c.owner;
		if (p && p->send == &c) {
			p->send = nullptr;
			if (Connection *next = candidate(*p)) {
				publish(*p, *next);
				sends = p;
			}
		}
	}
	if (sends)
		flush(*sends, now);
	kapi_netdev_xmit_unlock(netdev());
}

// FallBack: UD for that peer for a back-off (docs/design.md §4 item 8). The packets that waited
// go back to xmit, which now sends them over UD (or, above the UD MTU, answers them with
// ICMP, the mode's send_too_big).
void CmTable::fall_back(Connection &c)
{
	CmPending q;
	u32 backoff = 0;
	FallbackNote note;
	u32 missed = 0;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		CmPeer *p = c.owner;
		if (!p)
			return;
		// Logged once per peer, but a node can make us talk to many peers (any address it
		// names over ARP/ND, each refusing our REQ): rate-limited too, each counted, under
		// a limit of its own (fallback_log_), so fall-backs never leave out the warnings
		// of peer_log(). The limit is asked here (lock-free) so the peer's flag records a
		// printed line.
		note = cm_fallback_note(p->fallback_seen, p->fallback_logged, fallback_log_.allow(kapi_now_ms(), missed));
		// The back-off resets only after a connection to the peer delivered traffic
		// (cm::send_delivered: a successful completion that was progress): one that is
		// established and then carries nothing (a receiver that NAKs forever) or a trickle
		// the send watchdog tore down doubles it as a failed setup does.
		if (c.delivered())
			p->backoff_ms = 0;
		p->backoff_ms = p->backoff_ms ? (p->backoff_ms * 2 < kCmBackoffMaxMs ? p->backoff_ms * 2 : kCmBackoffMaxMs)
					      : kCmBackoffMinMs;
		backoff = p->backoff_ms;
		p->fallback_until = kapi_now_ms() + p->backoff_ms;
		if (p->active == &c)
			p->active = nullptr;
		// A peer that still has a send path (a bidirectional passive connection) keeps its
		// queue: a flush of it may be stopped at the RC bound, and a requeue to the stack
		// would reorder it or, under noqueue, drop it. Otherwise
		// all of it, also while a flush over a send path whose teardown began is posting:
		// the flush pops one packet at a time and stops when it finds the queue taken
		// (cm_flush_peer). Same capacity: all of it fits.
		if (!may_send(p->send))
			(void)cm_take_pending(*p, q);
	}
	if (note.first)
		count(ifs_.cm_fallback_peers);
	if (note.line == FallbackLine::None) {
		// left out (counted: cm_fall_backs, cm_fallback_peers)
	} else if (note.line == FallbackLine::Info) {
		log().info("peer QPN 0x%06x: no RC connection, datagram for %u ms, then CM again with a doubling back-off (logged once per peer; each counted cm_fall_backs; %u more not logged)",
			   c.peer().qpn(), backoff, missed);
	} else {
		log().debug("connection to QPN 0x%06x failed: UD for %u ms (%u more not logged)", c.peer().qpn(), backoff,
			    missed);
	}
	kapi_skb *skb;
	while (q.pop(skb))
		kapi_skb_requeue(skb);
}

void CmTable::reconnect(Connection &c)
{
	FeedNotes notes(log());	// printed after the unlock (ipoib_cm_notes.h)
	kstd::SpinIrqSaveGuard g(lock_);
	CmPeer *p = c.owner;
	if (!p || !open_)
		return;
	if (p->active == &c)
		p->active = nullptr;
	p->stale_retries++;
	// Not in datagram mode: a Reconnect queued before the switch would open a connection
	// nobody asked for (xmit opens one again once the mode is connected).
	if (!p->active && connected())
		connect(*p, kapi_now_ms(), Gfp::Atomic, notes);
}

void CmTable::await_other(Connection &c)
{
	kstd::SpinIrqSaveGuard g(lock_);
	CmPeer *p = c.owner;
	if (!p)
		return;
	if (p->active == &c)
		p->active = nullptr;
	if (p->crossing_waits < 0xff)
		p->crossing_waits++;	// until a connection is published (cm::kMaxCrossingWaits)
	if (!p->send)
		p->await_until = kapi_now_ms() + kCmAwaitOtherMs;
}

void CmTable::retire(Connection &c)
{
	stop_sending(c);	// StopSending came first (ForceDestroy too); belt and braces
	CmPending q;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		if (CmPeer *p = c.owner) {
			reserve_bar_fold(*p, c);	// before c leaves p: the bar stays with the peer
			gid_bar_keep(*p, kapi_now_ms());	// ... and with its port, whatever its QPN
			if (p->active == &c)
				p->active = nullptr;
			if (p->passive == &c)
				p->passive = nullptr;
			if (p->proving == &c) {
				p->proving = nullptr;
				p->proof.close();
				proofs_open_--;
			}
			p->conns--;
			c.owner = nullptr;
			if (c.delivered())	// the peer took traffic: the next failure starts afresh
				p->backoff_ms = 0;
			// Packets that waited for this connection and now have nobody to carry
			// them (a teardown without FallBack/Reconnect, e.g. the
			// peer's DREQ or REJ while they queued): back to xmit, which opens a new
			// connection or takes UD, instead of waiting for the next packet.
			// A one-way passive connection never sends (xmit's rule).
			const bool passive_will_send = may_carry(p->passive) && p->passive->bidir();
			if (open_ && !p->send && !may_carry(p->active) && !passive_will_send && !p->await_until)
				(void)cm_take_pending(*p, q);	// same capacity: all of it
		}
		if (c.stop_listed) {	// ForceDestroy before NAPI ran the stop
			for (Connection **p = &rx_stops_; *p; p = &(*p)->stop_next) {
				if (*p == &c) {
					*p = c.stop_next;
					break;
				}
			}
			c.stop_listed = false;
		}
		conns_.remove(c);
		nconns_--;
		c.leave_unproven();	// its slot of the limit goes with it
		retired_.add(c.counters());
		retired_st_.add(c.stats());
		dead_.push_back(c);
	}
	kapi_skb *skb;
	while (q.pop(skb))
		kapi_skb_requeue(skb);
	kick_house(0);
}

// Destroyed connections: their work item may still be pending (re-queued by an event that
// came while it ran); cancel it, then free. Never from the item itself.
void CmTable::free_dead()
{
	kstd::List<Connection> dead;
	{
		kstd::SpinIrqSaveGuard g(lock_);
		while (Connection *c = dead_.pop_front())
			dead.push_back(*c);
	}
	while (Connection *c = dead.pop_front()) {
		c->quiesce();
		delete c;
	}
}

} // namespace ipoib
