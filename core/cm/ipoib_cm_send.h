// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_send.h - the pure parts of connected mode's xmit path (docs/connected.md §3,
// §4, §10; host-compilable, for KUnit): the order of RC sends under the send bounds
// (ipoib_cm_budget.h: CmSlot, RcSendBudget; cm_flush_peer, cm_xmit_rc), the peer index xmit finds a peer in (CmPeerIndex), and which of a peer's
// connections may become its send path (cm_send_candidate), and what a FallBack logs
// (cm_fallback_note). CmTable (ipoib_cm.*)
// holds one of each and does the locking. None of it touches the netdev queue (TxQueueRule).
#pragma once

#include "core/cm/ipoib_cm_budget.h"
#include "core/ud/ipoib_neigh_policy.h"
#include "kstd/base.h"
#include "kstd/ring.h"

namespace ipoib {

// The peers of an interface by address (flags octet zero), for xmit's per-packet lookup
// (not a linear search under the table lock). A fixed array of
// buckets of singly linked entries, hashed as the neighbour table hashes (neigh_hash); P has
// `HwAddr addr` and `P *hnext`. Writers are serialised by the caller (the table lock).
// find() may also run without that lock while inserts happen: an entry is complete before
// the store that links it (release; the reader's loads acquire). Unlinking and freeing need
// the reader excluded another way: CmTable removes and frees only under the tx queue's xmit
// lock, which its lock-free reader (xmit) holds (not netif_tx_lock, whose
// FROZEN bit the noqueue qdisc and netpoll do not honour; an RCU-bh grace period would free
// safely too, but the flushes still need the producers serialised, which this lock does).
inline constexpr u32 kCmPeerBuckets = 256;
template <typename P> class CmPeerIndex : kstd::NonCopyable {
public:
	P *find(const HwAddr &a) const
	{
		for (P *p = load(b_[neigh_bucket(a.b, kCmPeerBuckets)]); p; p = load(p->hnext))
			if (bytes_equal(p->addr.b, a.b, kHwAddrLen))
				return p;
		return nullptr;
	}
	void insert(P &p)
	{
		P *&head = b_[neigh_bucket(p.addr.b, kCmPeerBuckets)];
		p.hnext = head;
		__atomic_store_n(&head, &p, __ATOMIC_RELEASE);
	}
	// True when p was in the index.
	bool remove(P &p)
	{
		for (P **q = &b_[neigh_bucket(p.addr.b, kCmPeerBuckets)]; *q; q = &(*q)->hnext) {
			if (*q == &p) {
				__atomic_store_n(q, p.hnext, __ATOMIC_RELEASE);
				p.hnext = nullptr;
				return true;
			}
		}
		return false;
	}
	void clear()
	{
		for (P *&h : b_)
			__atomic_store_n(&h, static_cast<P *>(nullptr), __ATOMIC_RELEASE);
	}

private:
	static P *load(P *const &slot) { return __atomic_load_n(&slot, __ATOMIC_ACQUIRE); }
	P *b_[kCmPeerBuckets] = {};
};

// Which of a peer's connections takes over as its send path (StopSending's hand-over,
// docs/connected.md §10): one that offered (StartSending ran, StopSending not yet) AND can
// still carry (carry(c): not draining or closed). An offered connection whose error
// teardown has begun is skipped (chosen by `offered` alone, the queue would go to a QP in
// error). The active one first.
template <typename C, typename Carry> C *cm_send_candidate(C *active, C *passive, Carry carry)
{
	if (active && active->offered && carry(active))
		return active;
	if (passive && passive->offered && carry(passive))
		return passive;
	return nullptr;
}

// xmit's per-peer order: a packet goes to the peer's send path at once only
// when that path may send and nothing of the peer still waits on its pending queue (a flush
// that stopped at the RC bound); otherwise it queues behind, and the flush sends it in turn.
inline bool cm_post_now(bool may_send, u32 waiting)
{
	return may_send && waiting == 0;
}

// The two waiting lists a peer can be on, by their chain and flag fields: the backlog (its
// queue waits for the interface bound) and the connection waiters (for its own connection's,
// or for the shared part of the interface bound while its connection makes no progress).
struct CmBoundLink {
	template <typename P> static P *&next(P &p) { return p.bnext; }
	template <typename P> static bool &on(P &p) { return p.backlogged; }
};
struct CmConnLink {
	template <typename P> static P *&next(P &p) { return p.cnext; }
	template <typename P> static bool &on(P &p) { return p.conn_waiting; }
};

// Peers whose pending queue waits for a send bound (CmBoundLink: the interface's, a flush
// stopped there or xmit met it; CmConnLink: their own connection's, or the reserve), in the order they
// began to wait, each at most once. add/pop/remove/clear are serialised by the caller: in
// the driver every change holds both the tx queue's xmit lock and the table lock, so either
// lock is enough to read it; waiting() is read under the xmit lock alone
// (xmit's fast path: a relaxed load). What flushes it walks only these peers, not every peer.
template <typename P, typename L = CmBoundLink> class CmBacklog : kstd::NonCopyable {
public:
	u32 waiting() const { return __atomic_load_n(&n_, __ATOMIC_RELAXED); }
	void add(P &p)
	{
		if (L::on(p))
			return;
		L::on(p) = true;
		L::next(p) = nullptr;
		(tail_ ? L::next(*tail_) : head_) = &p;
		tail_ = &p;
		__atomic_store_n(&n_, n_ + 1, __ATOMIC_RELAXED);
	}
	P *front() const { return head_; }
	P *pop()
	{
		P *p = head_;
		if (!p)
			return nullptr;
		head_ = L::next(*p);
		if (!head_)
			tail_ = nullptr;
		unlink(*p);
		return p;
	}
	// A peer about to be freed (true when it was listed).
	bool remove(P &p)
	{
		if (!L::on(p))
			return false;
		P *prev = nullptr;
		for (P *q = head_; q; prev = q, q = L::next(*q)) {
			if (q != &p)
				continue;
			(prev ? L::next(*prev) : head_) = L::next(p);
			if (tail_ == &p)
				tail_ = prev;
			unlink(p);
			return true;
		}
		return false;
	}
	void clear()
	{
		while (pop())
			;
	}

private:
	void unlink(P &p)
	{
		L::next(p) = nullptr;
		L::on(p) = false;
		__atomic_store_n(&n_, n_ - 1, __ATOMIC_RELAXED);
	}
	P *head_ = nullptr;
	P *tail_ = nullptr;
	u32 n_ = 0;
};

// For decltype only: the element type of a kstd::Ring.
template <typename T, u32 N> T cm_ring_value(const kstd::Ring<T, N> &);

// Table lock held: p's pending queue, oldest first, onto the back of out while out has room
// (FallBack, retire, the switch to datagram take it). What cm_flush_peer counted held at
// its front goes with it (p.held stays within what is queued). True when p's queue is empty.
template <typename P, typename Q> bool cm_take_pending(P &p, Q &out)
{
	u32 n = 0;
	while (!out.full()) {
		decltype(cm_ring_value(p.pending)) v{};
		if (!p.pending.pop(v))
			break;
		(void)out.push(v);	// not full: always taken
		n++;
	}
	p.held = p.held > n ? p.held - n : 0;
	return p.pending.empty();
}

// The order of RC sends under the tx queue's xmit lock (docs/connected.md §4), for a
// context X that gives: guard() (the table lock, for the queues and the lists),
// backlog() (its CmBacklog<P>: peers waiting for the interface bound), conn_waiters() (its
// CmBacklog<P, CmConnLink>: peers waiting for their own connection's bound), may_flush(p)
// (table lock held: p's send path may send, in connected mode), reserve(p) (one slot of
// p's connection and of the interface: CmSlot; none stops the netdev queue),
// unreserve() (a slot reserved for a packet that was taken meanwhile), post(p, v) (over
// p's send path, slot reserved), held(n) (a flush stopped at the interface bound with n
// packets of p left behind for the first time: counted, and the flush work is asked to
// continue once sends complete; called with n = 0 too), conn_held(p, n) (the same at
// p's own connection's bound: the flush work is asked for once that connection completes
// a send) and reserve_held(p, n) (the same at the reserve: p's connection makes no progress;
// the flush work is asked for at the next RC completion). P has `pending` (a kstd::Ring), `held` (how many at the front of pending a
// flush already counted) and both lists' fields.
//
// p's pending queue goes out one packet at a time while both bounds have room: a slot is
// reserved, then the oldest packet popped under the table lock, then posted outside it.
// Nothing of p's queue is ever held outside p.pending, so FallBack and retire (the table
// lock alone) take all that is left, in order, at any point of a flush (a flush that took
// the whole queue out while it posted would leave a FallBack meanwhile an empty queue, and
// the rest, pushed back after, would wait behind the UD packets sent under the back-off:
// delayed and reordered). may_flush is asked for each packet: a send path whose teardown
// begins during the flush gets nothing more (its hand-over, StopSending, takes the rest).
// What does not fit stays at the front, in order. At the interface bound p waits in the
// backlog: where it was when nothing of it fitted (its turn is not lost to a full bound),
// at the back when it had its share (the peers behind it go next). At its own connection's
// bound, or at the reserve, p waits on the connection waiters instead, and never in the
// backlog: a peer that cannot move must not end the backlog's rounds for the others (only a
// full interface bound ends them, where no peer can move). A peer that may not flush leaves
// both lists.
enum class CmFlush { Done, ConnWait, ReserveWait, IfWait };
template <typename X, typename P> CmFlush cm_flush_peer(X &x, P &p)
{
	{
		auto g = x.guard();
		if (!x.may_flush(p) || p.pending.empty()) {
			x.backlog().remove(p);
			x.conn_waiters().remove(p);
			return CmFlush::Done;
		}
	}
	u32 sent = 0;
	CmSlot r;
	while ((r = x.reserve(p)) == CmSlot::Ok) {
		decltype(cm_ring_value(p.pending)) v{};
		bool got, more;
		{
			auto g = x.guard();
			got = x.may_flush(p) && p.pending.pop(v);
			if (got && p.held)
				p.held--;	// it was at the front
			more = got && !p.pending.empty();
			if (!more) {
				x.backlog().remove(p);
				x.conn_waiters().remove(p);
			}
		}
		if (!got) {	// taken (FallBack, retire) or its path stopped meanwhile
			x.unreserve();
			return CmFlush::Done;
		}
		x.post(p, v);
		sent++;
		if (!more)
			return CmFlush::Done;
	}
	u32 fresh;
	{
		auto g = x.guard();
		const u32 left = p.pending.size();
		if (!left || !x.may_flush(p)) {
			x.backlog().remove(p);
			x.conn_waiters().remove(p);
			return CmFlush::Done;
		}
		fresh = left > p.held ? left - p.held : 0;	// p.held <= left (it shrinks with the front)
		p.held = left;
		if (r == CmSlot::ConnFull || r == CmSlot::Reserve) {
			x.backlog().remove(p);
			x.conn_waiters().add(p);
		} else {
			x.conn_waiters().remove(p);
			if (sent)
				x.backlog().remove(p);
			x.backlog().add(p);	// no-op when it kept its place
		}
	}
	if (r == CmSlot::ConnFull) {
		x.conn_held(p, fresh);
		return CmFlush::ConnWait;
	}
	if (r == CmSlot::Reserve) {
		x.reserve_held(p, fresh);
		return CmFlush::ReserveWait;
	}
	x.held(fresh);
	return CmFlush::IfWait;
}

// The peers that waited for the interface bound, oldest first, each listed when the round
// begins at most once; the first that stops at the interface bound ends the round (it is
// full). One that stops at its own connection's bound leaves for the connection waiters.
template <typename P, typename X> void cm_flush_backlog(X &x)
{
	for (u32 n = x.backlog().waiting(); n; n--) {
		P *p;
		{
			auto g = x.guard();
			p = x.backlog().front();
		}
		if (!p || cm_flush_peer(x, *p) == CmFlush::IfWait)
			return;
	}
}

// The peers that waited for their own connection's bound or the reserve, each listed when
// the round begins at most once (a send of theirs may have completed, or any connection's
// freed a shared slot: the flush work, after any RC completion while some wait). Each is tried on its own: one still at its bound goes to the
// back of the list and the next is tried; the round ends at the interface bound.
template <typename P, typename X> void cm_flush_conn_waiters(X &x)
{
	for (u32 n = x.conn_waiters().waiting(); n; n--) {
		P *p;
		{
			auto g = x.guard();
			p = x.conn_waiters().pop();
		}
		if (!p || cm_flush_peer(x, *p) == CmFlush::IfWait)
			return;
	}
}

// Sent: posted. Queued: behind p's waiting packets. ConnWait: queued because p's connection
// was at its own bound. ReserveWait: queued because only the reserve was left and p's
// connection makes no progress. AtBound: queued because the interface bound was full. Full:
// p's queue is full, v not taken.
enum class CmRcXmit { Sent, Queued, ConnWait, ReserveWait, AtBound, Full };

// xmit of v to peer p whose send path may send (tx queue's xmit lock held). Peers that waited
// for the interface bound go first (the netdev queue runs on at the bound, so the qdisc's
// packets of a busy peer would otherwise take every freed slot before the work flushes the
// waiting peer's queue, which would starve while the other kept the bound busy); peers
// waiting on their own connection or the reserve are not xmit's to retry (RC completions ask
// the flush work). Then
// v goes at once only when nothing of p waits and a slot is free; otherwise it queues
// behind p's packets (at either bound too, not dropped there) and is sent in turn. Full:
// p's queue is full, v not taken (the caller drops it, counted for p's connection).
template <typename X, typename P, typename T> CmRcXmit cm_xmit_rc(X &x, P &p, T v)
{
	if (x.backlog().waiting())
		cm_flush_backlog<P>(x);
	// Unlocked: pushes happen only under the xmit lock we hold, and the work items' pops
	// only shrink it, so an empty queue seen here stays empty (relaxed loads).
	const bool behind = !cm_post_now(true, p.pending.size_relaxed());
	if (!behind) {
		if (x.reserve(p) == CmSlot::Ok) {
			x.post(p, v);
			return CmRcXmit::Sent;
		}
	}
	{
		auto g = x.guard();
		if (!p.pending.push(v))
			return CmRcXmit::Full;
	}
	const CmFlush f = cm_flush_peer(x, p);
	if (behind)
		return CmRcXmit::Queued;
	switch (f) {
	case CmFlush::ConnWait:
		return CmRcXmit::ConnWait;
	case CmFlush::ReserveWait:
		return CmRcXmit::ReserveWait;
	case CmFlush::IfWait:
		return CmRcXmit::AtBound;
	case CmFlush::Done:
		break;
	}
	return CmRcXmit::Queued;
}

// ---- The identity proof of a bidirectional passive connection (docs/security.md "Who may
// carry our traffic"). Its REQ claims a GID and UD QPN that anyone on the partition can
// write; the connection becomes the peer's send path only after the peer echoed, over this
// connection, the nonce of a probe we sent over UD to the claimed address (cm::IdentMsg).
// Table lock; one proof open per peer (the newest REQ's).
//
// How long a proof may take from the REQ: REP, RTU, probe and echo take milliseconds; the
// probe is resent while unanswered (UD is unreliable), kCmProbeMax sends in all.
inline constexpr u32 kCmProofMs = 4000;
inline constexpr u32 kCmProbeEveryMs = 1000;
inline constexpr u8 kCmProbeMax = 3;
// While a proof is open, our packets to its address wait for it (the hold: xmit does not
// connect itself, cm_proof_holds). A hold begins at most once per kCmProofHoldEveryMs per
// peer and ends at that proof's deadline at the latest, however proofs end: a stream of
// forged REQs, each torn down before its deadline, delays nothing but the first one.
inline constexpr u32 kCmProofHoldEveryMs = 30000;

// A proof's start (cm_proof_start).
struct ProofStart {
	u64 until;	// its deadline
	u64 hold_until;	// xmit waits for it until then (at most until; now when there is no hold)
	u64 hold_next;	// the peer's next hold may begin then
};

struct IdProof {
	u64 until = 0;		// the proof's deadline; 0: no proof open
	u64 nonce = 0;		// the probe's; 0 until the first probe
	u64 sent_ms = 0;	// the last probe
	u8 probes = 0;

	u64 hold_until = 0;	// xmit waits for the proof until then (ProofStart)

	bool open() const { return until != 0; }
	// A connection put to its proof (cm_proof_start): nothing probed for it yet.
	void begin(const ProofStart &st)
	{
		*this = IdProof{};
		until = st.until;
		hold_until = st.hold_until;
	}
	// The connection became established (StartSending): the first probe goes with nonce n
	// (never 0: 0 means "no probe sent").
	void probe(u64 now, u64 n)
	{
		nonce = n ? n : 1;
		sent_ms = now;
		probes = 1;
	}
	bool probe_due(u64 now) const
	{
		return open() && nonce && probes < kCmProbeMax && now < until && now - sent_ms >= kCmProbeEveryMs;
	}
	void probed(u64 now)
	{
		sent_ms = now;
		probes++;
	}
	bool expired(u64 now) const { return open() && now >= until; }
	enum class Echo { Match, Mismatch, NoProbe };
	// An echo of nonce n arrived on the connection under proof.
	Echo echo(u64 n) const
	{
		if (!open() || !nonce)
			return Echo::NoProbe;
		return n == nonce ? Echo::Match : Echo::Mismatch;
	}
	void close() { *this = IdProof{}; }
};

// A bidirectional passive connection of a peer is put to its proof (its REQ was accepted);
// cur is the peer's proof, hold_next its ProofStart::hold_next so far. A superseding REQ (a
// new connection under the same identity while the proof runs) takes over the running
// proof's deadline and hold: a REQ never extends them, so a forger cannot keep a proof, and
// our packets waiting for it, pending for ever. Otherwise a proof of kCmProofMs starts,
// holding xmit back only when no hold began in the last kCmProofHoldEveryMs.
inline ProofStart cm_proof_start(const IdProof &cur, u64 hold_next, u64 now)
{
	if (cur.open() && now < cur.until)
		return {cur.until, cur.hold_until, hold_next};
	const u64 until = now + kCmProofMs;
	if (now >= hold_next)
		return {until, until, now + kCmProofHoldEveryMs};
	return {until, now, hold_next};
}

// xmit, for a peer without a send path: an unproven connection (carry: it may still carry)
// holds our own connect back, as a proven bidirectional one does, only while its proof is
// open and within its hold (cm_proof_start); otherwise we connect ourselves, so a forged
// REQ never stops us reaching the host it claims.
inline bool cm_proof_holds(bool carry, const IdProof &pr, u64 now)
{
	return carry && pr.open() && now < pr.until && now < pr.hold_until;
}

// An echo received over RC (CmTable::on_ident_rc): open, the interface is not stopping;
// under_proof, it came over the peer's connection under proof and names it; live, that
// connection is not in its teardown (may_send); echo, IdProof::echo of its nonce. Only a
// live connection of an open interface is proven: proving one in teardown would make it the
// peer's passive connection and close the live ones it replaces (a restart's rule).
enum class EchoVerdict { Proves, Mismatch, Unexpected, Stopping };
inline EchoVerdict cm_echo_verdict(bool open, bool live, bool under_proof, IdProof::Echo echo)
{
	if (!open || (under_proof && !live))
		return EchoVerdict::Stopping;
	if (!under_proof || echo == IdProof::Echo::NoProbe)
		return EchoVerdict::Unexpected;
	return echo == IdProof::Echo::Match ? EchoVerdict::Proves : EchoVerdict::Mismatch;
}

// A connection of a peer may become its send path (StartSending): ours (active), or the
// passive one the table filed as the peer's (proven, or one-way with the send_accepted test
// knob); never an unproven one.
template <typename C> bool cm_publishable(const C *c, bool active, const C *peer_passive)
{
	return active || c == peer_passive;
}

// A FallBack's note (CmTable::fall_back, under the table lock; printed after it). The peer
// entry's first FallBack is counted (first: cm_fallback_peers). Its info line goes out once
// per peer entry, at the first FallBack the interface's log limit lets a line through
// (allowed), so a line the limit left out is not lost for good; after it, debug lines.
// seen, logged: the peer entry's flags.
enum class FallbackLine : u8 { None, Info, Debug };
struct FallbackNote {
	bool first = false;
	FallbackLine line = FallbackLine::None;
};
inline FallbackNote cm_fallback_note(bool &seen, bool &logged, bool allowed)
{
	FallbackNote n;
	n.first = !seen;
	seen = true;
	if (!allowed)
		return n;
	n.line = logged ? FallbackLine::Debug : FallbackLine::Info;
	logged = true;
	return n;
}

} // namespace ipoib
