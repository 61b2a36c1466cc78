// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_conn.h - one connected-mode connection (RFC 4755): an RC QP with its cm_id, its
// receive ring (without an SRQ) or its SRQ attachment, its send ring and the cm::Conn that
// decides what happens to it (ipoib_cm_state.h). The Connection only executes: every event
// becomes a cm::Event, cm::Conn::on() returns a cm::Step, and the actions run in order
// (docs/connected.md §1, §2).
//
// Where actions run (docs/connected.md §1): a step that is CmNotify alone or empty runs
// inline, in the context the event came in; every other step is appended to the
// connection's FIFO and run by its work item, behind the steps already queued. The items of
// an interface's connections run on its unbound workqueue, side by side (so setups to many
// peers run concurrently); one item never runs concurrently with itself, so
// a connection's steps still run one at a time and in order. What connections share (the
// table, a peer's send path) is taken under the table's lock and the netif tx lock. A
// failed action is fed back as Ev::SetupFailed and the rest of its step is skipped; a
// failed SendRej/SendDreq/SendDrep is ignored (ib_destroy_cm_id at Destroy sends what the
// CM state still needs).
//
// WaitSends and WaitDrep never sleep in the work item (a sleeping item would hold a worker
// of the interface's workqueue): a step reaching one whose condition does
// not hold yet is parked, the item returns, and this connection's FIFO waits (its later steps
// stay queued behind it) while the other connections' items run. The last send completion
// (NAPI), the peer's answer to the DREQ (ib_cm) or the deadline (the housekeeping work, or
// interface stop's wait loop) requeues the item, which resumes the step after the wait
// (docs/connected.md §4).
//
// Owner: the interface's CmTable (its list of connections). Holds: a cm_id, an RC QP, a
// receive ring (non-SRQ), a send ring, a saved path record (active), a work item. Who may
// still call in: ib_cm (CM events) until Destroy's ib_destroy_cm_id returns; the provider
// (QP events) until its ib_destroy_qp returns; NAPI (completions) until the fence of §4
// completed, or until NAPI was disabled (ForceDestroy); xmit (send) while published as its
// peer's send path and until QuiesceTx after StopSending; the table (intents, debugfs) under
// its lock until the connection is retired. After Destroy the table frees it from its own
// work, after cancelling the work item (never from inside the item itself).
// Lock: lock_ (KAPI_LOCK_CM_CONN, irqsave): cm::Conn and the step FIFO; innermost but for
// the AH reaper's; taken inside the table's lock, never around it.
#pragma once

#include "core/ipoib_addr.h"
#include "core/cm/ipoib_cm_admission.h"
#include "core/cm/ipoib_cm_notes.h"
#include "core/rings/ipoib_rc_qp.h"
#include "core/rings/ipoib_recv_ring.h"
#include "core/rings/ipoib_rc_tx_ring.h"
#include "kstd/list.h"
#include "kstd/lock.h"
#include "kstd/ring.h"

namespace ipoib {

class CmTable;
struct CmPeer;

// Datapath counters of one connection (NAPI's or xmit's alone each); the table sums them
// over live and retired connections for ethtool -S (CmTable::stat_name).
#define IPOIB_RC_STATS(X)                                                                       \
	X(rc_rx_packets) X(rc_rx_bytes) X(rc_rx_drop_nomem) X(rc_rx_wc_errors) X(rc_rx_flushed) \
	X(rc_rx_post_errors) X(rc_rx_grown) X(rc_rx_grow_failed) X(rc_rx_shrunk) X(rc_rx_drop_short) \
	X(rc_tx_packets) X(rc_tx_bytes) X(rc_tx_wc_errors) X(rc_tx_drop_ring_full)             \
	/* its own send bound (docs/connected.md §3): packets that waited, dropped behind it */ \
	X(rc_tx_conn_held) X(rc_tx_drop_conn_queue)                                            \
	X(rc_tx_drop_dma) X(rc_tx_drop_post) X(rc_tx_too_big) X(rc_drain_wr_errors)            \
	X(rc_tx_wait_expired) X(rc_drep_wait_expired)                                          \
	X(rc_tx_csum_skipped) X(rc_tx_csum_filled) X(rc_tx_drop_csum) X(rc_rx_csum_restored)  \
	X(rc_rx_csum_unexpected) X(rc_rx_drop_csum) X(rc_tx_linearized) X(rc_tx_drop_linearize) \
	X(rc_tx_gathered)                                                                       \
	/* memory: refused completions, gather chunks (un)made (docs/connected.md §9) */        \
	X(rc_rx_refused) X(rc_tx_refused) X(rc_tx_gather_alloc) X(rc_tx_gather_freed)        \
	/* a non-SRQ QP left with no receive posted after a poll's reposts (must stay 0) */   \
	X(rc_rx_left_empty)                                                                    \
	/* growth refused: the interface's nonsrq_grow_mb or the connection's cap */          \
	X(rc_rx_grow_refused)
struct RcStats {
#define IPOIB_RC_STAT_FIELD(n) u64 n = 0;
	IPOIB_RC_STATS(IPOIB_RC_STAT_FIELD)
#undef IPOIB_RC_STAT_FIELD
	void add(const RcStats &o);
};
#define IPOIB_RC_STAT_ONE(n) +1
inline constexpr u32 kRcStatCount = 0 IPOIB_RC_STATS(IPOIB_RC_STAT_ONE);
#undef IPOIB_RC_STAT_ONE

// Steps waiting for the work item. An event produces at most one step; far fewer than
// this can be outstanding before the item runs (a CM exchange is a handful of messages).
inline constexpr u32 kStepQueue = 32;

class Connection : public RcQp, public kstd::ListLink<>, kstd::NonCopyable {
public:
	Connection(CmTable &t, cm::Dir dir, const cm::Config &cfg, const HwAddr &peer);
	~Connection();

	// The work item; gfp: atomic when created from xmit. Fails only without memory.
	Status init(Gfp gfp);
	// Passive: the cm_id ib_cm created for the REQ, and what the REQ said.
	void adopt(kapi_cm_id *id, u32 remote_qpn, u32 peer_recv_mtu);

	// The table, before freeing a retired connection: no feed() is still inside its
	// critical section, and the work item is neither pending nor running.
	void quiesce();
	// Feeds one event; returns the step it produced (already dispatched). The caller holds
	// no lock of ours: what the feed has to log is printed before it returns.
	cm::Step feed(const cm::Event &e);
	// The same under the table lock: what it has to log goes to notes, printed after the
	// unlock (FeedNotes).
	cm::Step feed(const cm::Event &e, FeedNotes &notes);
	// Entry points
	void run();					// the work item
	void cm_event(const kapi_cm_event &ev);		// ib_cm's context
	void qp_event(kapi_qp_event_kind kind);		// the provider's (atomic)
	void on_wc(const kapi_wc &wc, u64 now_ms, u64 lag_ms);	// NAPI; lag_ms: RcTxRing::complete
	// NAPI, once per poll for a connection whose own ring completed receives in it: growth
	// and reposts are per batch (ipoib_recv_ring.h). True when a refused post left
	// nothing posted (needs_retry): the caller brings NAPI back later.
	bool rx_batch();
	// NAPI, for a stop the work item requested at QpToErr (non-SRQ): the ring posts nothing
	// more, and when nothing is posted any more RxEmpty is reported now (no completion
	// would say so: refused posts, or a failed post_initial left nothing posted).
	void rx_stop_now();
	Connection *napi_next = nullptr;	// NAPI only: the table's list of connections to batch
	bool napi_listed = false;		// NAPI only
	Connection *stop_next = nullptr;	// table lock: the table's list of stop requests
	bool stop_listed = false;		// table lock
	u32 reap_pass = 0;			// table lock: teardown's last reap_stuck pass over it
	// xmit (netif tx lock held): skb at the encapsulation header, one slot of the table's
	// RC send bound reserved for it (CmTable::rc_reserve). Consumes both.
	void send(kapi_skb *skb, u64 now_ms);

	// Read by the table (under its lock) and by debugfs.
	const HwAddr &peer() const { return peer_; }
	cm::Dir dir() const { return dir_; }
	cm::State state() const;
	bool bidir() const;
	// What the peer's REQ (passive: after adopt) or REP settled, for its ReqReceived /
	// RepReceived event (counted at Established). Sets csum_free (both ends announced
	// kCapCsumFree, docs/connected.md §9b) before the connection carries packets.
	cm::Negotiated negotiated(const cm::Caps &peer, bool rfc_sid);
	bool csum_free() const { return __atomic_load_n(&csum_free_, __ATOMIC_ACQUIRE); }
	u32 qpn() const { return __atomic_load_n(&qpn_, __ATOMIC_RELAXED); }
	u32 remote_qpn() const { return __atomic_load_n(&remote_qpn_, __ATOMIC_RELAXED); }
	u32 mtu() const { return __atomic_load_n(&mtu_, __ATOMIC_RELAXED); }
	u32 rx_posted() const;
	const RecvRing &rx_ring() const;	// its own (non-SRQ) or the SRQ's
	// Memory it holds (docs/connected.md §5.1, any context): its own receive ring's bytes
	// (0 on the SRQ, which the table counts once) and its send ring's.
	u64 rx_bytes() const { return srq_ ? 0 : rx_.bytes(); }
	u64 tx_bytes() const { return tx_.bytes(); }
	// The housekeeping work, netif tx lock held: the send ring's idle gather chunks freed.
	u32 trim_tx(u64 now) { return tx_.trim(now); }
	// 0 when xmit/NAPI touched it after the caller read now (kstd::ms_since; no wrap).
	u64 idle_ms(u64 now) const { return kstd::ms_since(now, __atomic_load_n(&used_ms_, __ATOMIC_RELAXED)); }
	bool send_stalled(u64 now) const { return tx_.stalled(now); }
	bool delivered() const { return tx_.delivered(); }
	u32 tx_inflight() const { return tx_.outstanding(); }
	// xmit (netif tx lock held: the ring's only producer, so room seen stays room): the
	// connection's own send bound, its ring, has a slot.
	bool tx_room() const { return tx_.outstanding() < tx_.size(); }
	// xmit: n packets of its peer waited at its own bound; one dropped behind it.
	void count_conn_held(u32 n) { count_local(st_.rc_tx_conn_held, n); }
	void count_conn_drop() { count_local(st_.rc_tx_drop_conn_queue); }
	u64 tx_no_progress_ms(u64 now) const { return tx_.no_progress_ms(now); }
	// xmit (netif tx lock held): may take the RC bound's reserve (RcTxRing::reserve_eligible)
	bool tx_reserve_eligible(u64 now) const { return tx_.reserve_eligible(now); }
	// barred from the reserve by a late completion (RcTxRing::reserve_barred); any context
	bool tx_reserve_barred(u64 now) const { return tx_.reserve_barred(now); }
	u64 tx_reserve_bar() const { return tx_.reserve_bar(); }	// the peer's, CmTable::reserve_bar_fold
	void tx_reserve_bar_at_least(u64 until) { tx_.reserve_bar_at_least(until); }
	// Passive: the REQ came longer than cm::kAcceptDeadlineMs before now (lock_ held).
	bool accept_overdue(u64 now) const { return cm::accept_overdue(now, req_ms_); }
	// Active: its last REQ (a step with SendReq: Connect's, the RFC service ID's retry) was
	// fed longer than its deadline before now (any context): cm::kConnectDeadlineMs from the
	// feed, cm::connect_deadline_ms of the REQ's values once req_sent recorded them.
	bool connect_overdue(u64 now) const
	{
		return cm::connect_overdue(now, __atomic_load_n(&req_ms_, __ATOMIC_RELAXED),
					   __atomic_load_n(&connect_deadline_ms_, __ATOMIC_RELAXED));
	}
	// Active: ib_cm accepted our REQ, sent with the path's packet lifetime packet_life and
	// cm::kCmResponseTimeout, cm::kMaxCmRetries; the deadline becomes theirs (any context).
	void req_sent(u8 packet_life);
	// A parked wait whose deadline has passed (or that stop cuts short): requeue the work
	// item, which resumes the step. The housekeeping work and stop's wait loop call it.
	void resume_if_due(u64 now);
	// The wait a step is parked in, for debugfs (wait=sends / wait=drep), or nullptr.
	const char *wait_name() const;
	// The parked wait's own deadline (kapi_now_ms clock), 0 when none is parked.
	u64 wait_due() const;
	// Draining for longer than ms and not reported yet: the caller feeds Ev::DrainTimeout
	// (counted, logged; the connection keeps waiting for its fence, docs/connected.md §4).
	bool drain_overdue(u64 now, u64 ms);
	bool uses_srq() const { return srq_; }
	// Interface stop and teardown: one log line on what a connection still there waits for
	// (its state, parked wait, steps queued, the action its work item is inside and for how
	// long, the fence's events seen, sends outstanding), so a stuck one names its cause.
	void log_stuck(const char *when, u64 now);
	// The action the work item is executing, or nullptr (any context; a snapshot).
	const char *acting(u64 now, u64 &ms) const;
	// Interface teardown, past its bound (CmTable::teardown): the Destroy its ForceDestroy
	// queued has not run. From now on no event queues the work item; unless the item is
	// inside an action (Busy: our code is running, nothing may be freed under it), it is
	// cancelled and the Destroy runs here (Reaped), or the run that began meanwhile did it
	// (Destroyed). Table lock not held.
	enum class Reap : u8 { Reaped, Destroyed, Busy };
	Reap reap();
	// Counters (a consistent-enough copy for ethtool; retired ones are final).
	cm::Counters counters() const;
	const RcStats &stats() const { return st_; }
	// A step queued or running holds FallBack, Reconnect or AwaitOther that has not run yet
	// (the table's may_carry: xmit waits for that decision instead of connecting anew).
	// Passive, the table lock held, before its REQ is fed: c holds one slot of the table's
	// ReqPool, given back once (feed) when it is no longer accepting, or at Destroy.
	void hold_pool_slot() { __atomic_store_n(&pooled_, true, __ATOMIC_RELEASE); }
	// Passive, likewise: c holds one slot of the table's unproven budget until its peer
	// proves its identity or c is retired (leave_unproven, once; the destructor too), or,
	// one_way (unproven_returns_at_rx), until its first successful receive, and one of its
	// unreserved budget until the proof or the retirement alone (ipoib_cm_admission.h).
	void hold_unproven(bool one_way)
	{
		unproven_.hold(one_way);
		unreserved_.hold(false);
	}
	void leave_unproven();
	bool peer_action_pending() const { return __atomic_load_n(&peer_actions_, __ATOMIC_ACQUIRE) != 0; }
	CmPeer *owner = nullptr;	// the table's peer entry (table lock)
	// Table lock: its StartSending ran and its StopSending did not yet, so it may carry the
	// peer's packets; the table publishes one such connection per peer (CmTable::republish).
	bool offered = false;

private:
	void drop_unposted(kapi_skb *skb);	// send(): not posted, its slot released
	cm::Step feed_note(const cm::Event &e, FeedNote &note);	// feed() without the log
	// The wait a parked step is in (wait_), 0 when none.
	enum : u8 { kNoWait = 0, kWaitSends = 1, kWaitDrep = 2 };
	void execute(cm::Step st, u8 from = 0);
	bool wait_holds(u8 w) const;	// its condition: nothing outstanding / the peer answered
	bool park(const cm::Step &st, u8 next, u8 w);
	bool resume_parked(cm::Step &st, u8 &from);
	void wait_expired(u8 w);	// counted, logged
	void kick();			// requeue the work item if a step is parked
	// peer_actions_ += delta for each FallBack/Reconnect/AwaitOther of st from index from
	void note_peer_actions(const cm::Step &st, u8 from, int delta);
	Status act(cm::Action a, const cm::Step &st);
	Status create_qp();
	Status send_req();
	Status send_rep();
	Status send_rej(const cm::Step &st);
	void destroy();
	void receive(const kapi_wc &wc, u64 now);
	void report_rx_empty();	// NAPI: once, the last thing NAPI does with *this
	void priv_data(u8 *out) const;
	void touch(u64 now);
	void leave_pool();	// the pool slot back, once (hold_pool_slot)

	CmTable &t_;
	const cm::Dir dir_;
	const bool srq_;
	HwAddr peer_;			// flags octet zero: the table's key
	mutable kstd::SpinLock lock_;
	cm::Conn conn_;
	kstd::Ring<cm::Step, kStepQueue> steps_;
	kapi_work *work_ = nullptr;
	kapi_cm_id *id_ = nullptr;
	kapi_qp *qp_ = nullptr;
	kapi_cm_path *path_ = nullptr;	// active: the primary path of the REQ
	u32 qpn_ = 0;
	u32 remote_qpn_ = 0;
	u32 psn_ = 0;
	u32 peer_recv_mtu_ = 0;
	u32 mtu_ = 0;			// RFC 4755 §5.1: min of both Receive MTUs - 4
	u64 used_ms_ = 0;
	u64 req_ms_ = 0;		// passive: when its REQ arrived (adopt); active: when the
					// step sending its last REQ was fed (atomic)
	u64 connect_deadline_ms_ = cm::kConnectDeadlineMs;	// atomic: the last REQ's (req_sent)
	u64 draining_since_ = 0;	// under lock_: when the state became draining
	bool drain_reported_ = false;	// under lock_
	bool destroyed_ = false;
	bool reaped_ = false;		// under lock_: teardown took over (reap), nothing queues the item
	u8 acting_ = kNoAct;		// atomic: the cm::Action the work item is executing (acting())
	u64 acting_since_ = 0;		// atomic: when it began
	static constexpr u8 kNoAct = 0xff;
	bool rts_done_ = false;		// work item: QpToRts ran and succeeded (the drain WR's rule)
	bool rx_empty_reported_ = false;	// NAPI only (non-SRQ)
	bool peer_closing_ = false;	// atomic: the peer answered or sent a DREQ/REJ (WaitDrep)
	bool csum_free_ = false;	// atomic: negotiated()
	bool pooled_ = false;		// atomic: holds a ReqPool slot (hold_pool_slot)
	UnprovenSlot unproven_;		// its unproven-budget slot (hold_unproven)
	UnprovenSlot unreserved_;	// its unreserved-budget slot (the same)
	u8 wait_ = kNoWait;		// atomic: the wait a parked step is in (triggers read it)
	u32 peer_actions_ = 0;		// atomic: FallBack/Reconnect/AwaitOther queued, not yet run
	u64 wait_until_ = 0;		// atomic: its deadline (the housekeeping work reads it)
	cm::Step parked_;		// work item only: the step, resumed at parked_next_
	u8 parked_next_ = 0;
	RcStats st_;
	RecvRing rx_;			// non-SRQ only
	RcTxRing tx_;
};

} // namespace ipoib
