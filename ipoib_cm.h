// SPDX-License-Identifier: GPL-2.0
// ipoib_cm.h - an interface's connected-mode part (RFC 4755, docs/connected.md): the
// two listening cm_ids, the SRQ and its receive ring (when the device has SRQs), one entry
// per peer (its active and passive Connection, the one xmit sends over, and the packets
// waiting for it), every Connection, the CM workqueue, and the interface-stop sequence.
//
// Owner: Interface (a member, composed like its rings). Holds: 2 listening cm_ids, an SRQ +
// RecvRing, an unbound workqueue (the connections' work items), CmPeers (each owns its queued skbs), Connections, a
// delayed work (reaping, watchdog, deadlines, freeing destroyed connections).
// Who may call in: xmit (xmit(), the tx queue's xmit lock held), NAPI (on_wc), ib_cm (on_req), the provider
// (SRQ events), the interface's open/stop/teardown and mode switch (process context).
// Lock: lock_ (KAPI_LOCK_IF_CM, irqsave): peers, the connection list, counts. Taken inside
// the tx queue's xmit lock (xmit; the table's own kapi_netdev_xmit_lock), around a Connection's lock, never around the path or neighbour
// locks (a path record is copied under the path lock alone).
#pragma once

#include "core/cm/ipoib_cm_admission.h"
#include "core/cm/ipoib_cm_conn.h"
#include "core/cm/ipoib_cm_send.h"
#include "core/ipoib_log_limit.h"
#include "core/ipoib_params.h"
#include "core/cm/ipoib_srq.h"
#include "kstd/log.h"

namespace ipoib {

class Interface;

// Packets waiting for a connection to a peer (far more than in-tree's 3).
inline constexpr u32 kCmPendingQueue = 64;
using CmPending = kstd::Ring<kapi_skb *, kCmPendingQueue>;

// How long a peer whose connection failed is reached over UD before CM is tried again
// (docs/design.md §4 item 8): doubling from 1 s to 64 s; a success resets it.
inline constexpr u32 kCmBackoffMinMs = 1000;
inline constexpr u32 kCmBackoffMaxMs = 64000;
// AwaitOther (RFC 4755 §3.3): how long the peer's crossing REQ may take to arrive before we
// connect again ourselves (docs/connected.md §2 "the core still needs a deadline").
inline constexpr u32 kCmAwaitOtherMs = 5000;
// Interface stop: how long the fences of closing connections may take before ForceDestroy.
inline constexpr u32 kCmStopWaitMs = 3000;
// Of that, the last part is the fences' (QpToErr, the drain with NAPI on): the graceful waits
// of the closes (cm::kWaitSendsMs, cm::kWaitDrepMs) are cut short before it.
inline constexpr u32 kCmStopFenceMs = 1000;
// Interface teardown: how long the Destroys ForceDestroy queued may take in the connections'
// own work items before teardown runs them itself (Connection::reap); then how often one whose
// work item is still inside an action is logged while teardown waits for it.
inline constexpr u32 kCmTeardownWaitMs = 10000;
inline constexpr u32 kCmTeardownLogMs = 30000;
// At most this many connections still there are logged one by one (stop, teardown).
inline constexpr u32 kCmStuckLogMax = 4;
// SRQ mode has no per-QP limit of its own; this bounds the drain WRs the CQ must hold.
inline constexpr u32 kCmMaxSrqConns = 1024;
// A teardown fence not complete after this long is counted (cm_drain_timeouts) and logged;
// the connection keeps waiting (never destroyed without its fence but at interface stop).
inline constexpr u32 kCmDrainTimeoutMs = 10000;
// The SRQ limit (IBA 11.6.3.2 SRQ_LIMIT_REACHED): fewer than a quarter of its receives posted.
inline constexpr u32 kCmSrqLimitDiv = 4;
// Period of the housekeeping work (reaping, watchdog, deadlines).
inline constexpr u32 kCmHousekeepMs = 1000;

struct CmPeer : kstd::ListLink<>, kstd::NonCopyable {
	HwAddr addr;			// flags octet zero
	CmPeer *hnext = nullptr;	// CmPeerIndex's bucket chain
	Connection *active = nullptr;	// ours, connecting or established
	Connection *passive = nullptr;	// accepted from the peer: one-way, or bidirectional and proven
	// A bidirectional passive connection whose peer has not yet proven the address its REQ
	// claimed (IdProof): never a send path until the echo makes it `passive`.
	Connection *proving = nullptr;
	IdProof proof;
	u64 proof_hold_next = 0;	// the next proof may hold xmit back from then (cm_proof_start)
	bool publish_due = false;	// proven in NAPI: the flush work publishes it
	Connection *send = nullptr;	// xmit's RC path: one of active/passive that is offered
	CmPending pending;		// packets waiting for `send`, in order
	u32 held = 0;			// table lock: the first `held` of pending are counted cm_tx_flush_held
	CmPeer *bnext = nullptr;	// CmBacklog's chain (the table lock)
	bool backlogged = false;	// in the table's backlog: pending waits for the RC bound
	CmPeer *cnext = nullptr;	// the connection waiters' chain (the table lock)
	bool conn_waiting = false;	// pending waits for its own connection's bound (or the reserve)
	u64 fallback_until = 0;		// UD only until then (FallBack)
	// The reserve's lateness bar (ms; cm::reserve_bar_end): what the peer's ended rings left
	// (CmTable::reserve_bar_fold), where a new connection's ring starts; raised from the
	// table's bar for the GID (cm::GidBars) and the GID's live connections when the entry is
	// created and a connection is filed, and by another entry's retired ring of the same GID
	// (CmTable::gid_bar_inherit, gid_bar_keep; table lock)
	u64 reserve_bar_until = 0;
	u32 backoff_ms = 0;
	bool fallback_seen = false;	// it fell back once (cm_fallback_peers, once per peer entry)
	bool fallback_logged = false;	// the info line was printed (cm_fallback_note)
	u64 await_until = 0;		// AwaitOther: the peer's REQ is expected before then
	u8 stale_retries = 0;
	u8 crossing_waits = 0;		// AwaitOther in a row, no connection since (cm::Config)
	u32 conns = 0;			// connections whose owner this is (retire drops it)
	u64 used_ms = 0;
};

// Interface-level counters of connected mode (ethtool -S, after the per-connection sums).
#define IPOIB_CM_IF_STATS(X)                                                                    \
	X(cm_tx_queued) X(cm_tx_drop_queue_full) X(cm_tx_nomem_ud) X(cm_tx_fallback_ud)       \
	X(cm_req_no_memory) X(cm_req_bad_service_id) X(cm_srq_limit_events) X(cm_step_overflows) \
	X(cm_listen_errors) X(cm_await_expired) X(cm_inflight_full) X(cm_other_events)         \
	X(cm_no_qp_actions) X(cm_tx_reserve_held) X(cm_tx_overflow_ud) X(cm_fallback_peers)     \
	X(cm_inflight_underflows) X(cm_tx_flush_held) X(cm_tx_held_draining) X(cm_drain_wr_skipped) \
	X(cm_peers_freed) X(cm_tx_drop_teardown) X(cm_tx_arp_ud) X(cm_tx_nd_ud)                \
	/* identity proofs of bidirectional passive connections (docs/security.md) */          \
	X(cm_id_proofs) X(cm_id_verified) X(cm_id_proof_timeouts) X(cm_id_superseded)         \
	X(cm_id_lid_mismatch) X(cm_id_probes_sent) X(cm_id_probes_rx) X(cm_id_probes_unmatched) \
	X(cm_id_echoes_sent) X(cm_id_echoes_dropped) X(cm_id_echo_mismatch) X(cm_id_echo_unexpected) \
	X(cm_id_rx_bad) X(cm_id_nomem) X(cm_id_echo_stopping)                                  \
	/* REQ admission and the peer bound (docs/security.md, ipoib_cm_admission.h) */         \
	X(cm_req_pool_full) X(cm_req_bad_pkey) X(cm_peers_added) X(cm_peers_refused)          \
	X(cm_peer_restarts) X(cm_req_unproven_full) X(cm_unproven_released_rx) X(cm_req_unreserved_full) \
	/* teardown ran a connection's Destroy itself, its work item not having run it */       \
	X(cm_teardown_reaped)                                                                   \
	/* packets refused the RC reserve while a late completion bars their connection */      \
	X(cm_tx_reserve_held_late)                                                              \
	/* active connections still connecting at cm::kConnectDeadlineMs: torn down */          \
	X(cm_connect_timeouts)                                                                  \
	/* a reserve bar still in force lost from the bars by GID for want of room (GidBars) */  \
	X(cm_reserve_bar_evicted)
struct CmIfStats {
#define IPOIB_CM_IF_STAT_FIELD(n) u64 n = 0;
	IPOIB_CM_IF_STATS(IPOIB_CM_IF_STAT_FIELD)
#undef IPOIB_CM_IF_STAT_FIELD
};
#define IPOIB_CM_IF_STAT_ONE(n) +1
inline constexpr u32 kCmIfStatCount = 0 IPOIB_CM_IF_STATS(IPOIB_CM_IF_STAT_ONE);
#undef IPOIB_CM_IF_STAT_ONE

// Not counters but levels (docs/connected.md §9): KiB the
// driver holds now, summed over the live connections' rings (rc_rx: their own receive
// rings, rc_tx: their send rings, rc_pinned: both) and the SRQ's ring (rc_srq). Each sum
// is taken in bytes and rounded up once.
#define IPOIB_CM_MEM_STATS(X) X(rc_rx_pinned_kib) X(rc_tx_pinned_kib) X(rc_pinned_kib) X(rc_srq_pinned_kib)
#define IPOIB_CM_MEM_STAT_ONE(n) +1
inline constexpr u32 kCmMemStatCount = 0 IPOIB_CM_MEM_STATS(IPOIB_CM_MEM_STAT_ONE);
#undef IPOIB_CM_MEM_STAT_ONE

// ethtool -S of connected mode: cm::Counters, the RC datapath's, the interface's, the REJs
// sent and received by reason, then the memory levels.
inline constexpr u32 kCmTableStats =
	cm::kCtrCount + kRcStatCount + kCmIfStatCount + 2 * cm::kRejCodeCount + kCmMemStatCount;

class CmTable;
// The interface's SRQ: the only Srq the driver creates, so its event entry point reaches the
// table through it (ipoib_entry.cpp).
class CmSrq : public Srq {
public:
	CmSrq(kstd::Logger &log, CmTable &t) : Srq(log), table(t) {}
	CmTable &table;
};

class CmTable : kstd::NonCopyable {
public:
	explicit CmTable(Interface &ifc);
	~CmTable();

	// ---- lifetime (process context)
	// After the PD, before the CQs: workqueue, SRQ + ring (the CQ's size depends on them).
	Status start(const CmParams &p, u32 send_queue_size, u32 recv_queue_size);
	// Receive CQ entries connected mode adds (docs/connected.md §4): the SRQ's size (or every
	// non-SRQ ring's maximum), the RC send bound, one drain WR per connection. After start().
	u32 cq_entries() const;
	// Process context (the CM work, before a non-SRQ QP is created): the receive CQ holds
	// every connection counted (cm::cq_conns_grow; ib_resize_cq when it does not). NoMem
	// when the resize failed (counted in cq_resize_failed, shown in cm_limits): the QP is
	// not created. Ok at once in SRQ mode (the CQ was sized for every connection).
	Status cq_room();
	// ethtool -G (rtnl, the UD QP gone): the receive CQ resized for a new UD share (ipoib_if_rings.cpp).
	Status set_ud_share(u32 ud_entries);
	Status open();		// the listeners (both admin modes)
	bool available() const { return recv_mtu_ != 0; }	// start() found what CM needs
	const char *summary() const;	// for the interface's one bring-up log line
	void stop_begin();	// NAPI still on: listeners off, Close all, bounded wait
	void stop_end();	// NAPI off: the neighbours go; connections still draining stay
	void teardown();	// after the last stop: ForceDestroy those, housekeeping, SRQ, ring, workqueue
	u32 reap_stuck(u64 now, bool log_each, bool first);	// teardown past its bound
	void log_stuck(const char *when);	// stop: what the connections still there wait for

	// ---- datapath
	enum class Verdict { Done, UseUd };
	// xmit, tx lock held, connected admin mode, unicast to a peer with the RC flag: sent on
	// RC, queued for a connection, dropped (counted) -> Done; UseUd: send it over UD.
	Verdict xmit(kapi_skb *skb, const HwAddr &dst, u64 now);
	void on_wc(RcQp &qp, const kapi_wc &wc, u64 now, u64 lag);	// NAPI; lag: cm::poll_backlog_lag
	void after_poll();					// NAPI, after each poll
	void srq_event(kapi_qp_event_kind kind);		// provider, atomic
	kapi_ctx *on_req(kapi_cm_id *id, const kapi_cm_event &ev);	// ib_cm

	// ---- control
	void mode_changed(bool connected);	// rtnl held: the interface's admin mode changed
	bool connected() const { return __atomic_load_n(&connected_, __ATOMIC_ACQUIRE); }	// any context
	void housekeeping();			// the delayed work
	void flush_work();			// the flush work: the backlog alone (kick_flush)
	void show(kapi_seq *s);			// debugfs connections
	void show_limits(kapi_seq *s);		// debugfs cm_limits
	// debugfs send_accepted (docs/connected.md §2 "Who sends"): the test knob, read by the
	// connections created after the write. "0"/"1" (one newline allowed), else -EINVAL, logged.
	void show_send_accepted(kapi_seq *s);
	// debugfs rc_send: the interface-wide RC send bound, one line
	// "inflight=N limit=M underflows=U" (a leak would hold the shared netdev queue).
	void show_rc_send(kapi_seq *s);
	int store_send_accepted(StrView v, usize total);
	u32 stat_count() const { return kCmTableStats; }
	static const char *stat_name(u32 i);
	void stat_values(u64 *out) const;	// kCmTableStats values, one walk of the connections
	// rtnl_link_stats64: what RC adds to the UD totals (its receives are in them already,
	// Interface::receive_rc): sends, their bytes, errors and drops.
	void add_stats64(kapi_stats64 &o) const;

	// ---- for Connection
	Interface &ifc() { return ifc_; }
	kapi_ib_device *ib() const;
	kapi_pd *pd() const;
	kapi_cq *cq() const;
	kapi_netdev *netdev() const;
	u32 lkey() const;
	u32 port() const;
	u16 pkey_index() const;
	u32 ud_qpn() const;
	// The RC send bounds (RcSendBudget, rc_slot): a slot of c's ring and of the interface
	// reserved before each post (xmit, the queue flushes, the identity echoes: tx lock held),
	// released when the post fails. Never stops the netdev queue.
	CmSlot rc_reserve(Connection &c, u64 now, bool echo = false);
	// An identity echo's: not refused the reserve by lateness (cm::reserve_may_take).
	CmSlot rc_reserve_echo(Connection &c) { return rc_reserve(c, kapi_now_ms(), true); }
	// The reserve's lateness bar is the peer's (docs/connected.md §3), table lock held: c's
	// ring ended (retire: its bar kept on p, and raised on p's other connections, which may
	// have been set up meanwhile); c is p's new connection (its ring starts from p's bar).
	void reserve_bar_fold(CmPeer &p, Connection &c);
	void reserve_bar_inherit(CmPeer &p, Connection &c);
	// Table lock held: p's bar kept by its GID alone (gid_bars_), written when a ring's bar
	// was folded into p (retire; a bar in force lost for room is counted
	// cm_reserve_bar_evicted) and raised on every live connection of the GID and its peer
	// entry (another entry under another UD QPN among them); read into p when the entry is
	// created and when a connection is filed under it, with what each live connection of
	// the GID stands for now (cm::reserve_bar_live: its bar, its hold counted late), so an
	// entry for the same port under a new UD QPN starts barred, whether the old address's
	// connection has ended or still holds.
	void gid_bar_keep(const CmPeer &p, u64 now);
	void gid_bar_inherit(CmPeer &p, u64 now);
	void rc_unreserve() { budget_.unreserve(); }
	u32 rc_inflight() const { return budget_.inflight(); }	// debugfs
	u32 rc_limit() const { return budget_.limit(); }	// the tx timeout's log line
	kstd::Logger &log();
	// The rate limit (LogLimit) of this interface's log lines a peer can trigger, one per
	// connection at worst: watchdog teardowns, late fences, expired graceful waits, a failed
	// setup action, the CQ that cannot grow. Every event behind them is counted; connection
	// event notes have their own (ipoib_cm_notes.h), and so have the fall-back lines
	// (fallback_log_): a peer that refuses every REQ of ours falls back at each back-off,
	// and those lines must not use up the warnings'.
	LogLimit &peer_log() { return peer_log_; }
	const CmParams &params() const { return p_; }
	kapi_wq *wq() const { return wq_; }
	kapi_srq *srq() const { return srq_.raw(); }
	RecvRing &srq_ring() { return srq_ring_; }
	u32 recv_mtu() const { return recv_mtu_; }	// what our buffers hold (RFC 4755 §6)
	u32 buf_size() const { return recv_mtu_; }
	u32 nsge() const { return nsge_; }
	u32 send_ring_size() const { return send_ring_; }
	u32 rc_send_sge() const { return rc_send_sge_; }	// SGEs per RC send (docs/connected.md §9b)
	u32 recv_queue_size() const { return recv_queue_; }
	bool bidir() const { return p_.bidir; }
	bool csum_free() const { return p_.csum_free; }	// we announce kCapCsumFree
	CmIfStats &ifstats() { return ifs_; }
	ReqPool &req_pool() { return pool_; }	// a passive connection's slot while accepting
	ReqPool &unproven_budget() { return unproven_; }	// ... until its peer is proven
	ReqPool &unreserved_budget() { return unreserved_; }	// ... its first packet notwithstanding
	RecvGrowBudget &rx_budget() { return rx_budget_; }	// non-SRQ rings' growth (nonsrq_grow_mb)
	// A REJ we sent (sent) or received, by IBA reason (cm::rej_code; ethtool -S cm_rej_tx_* /
	// cm_rej_rx_*). Any context.
	void count_rej(bool sent, u32 reason);
	// Actions that concern the peer (from the connection's work item)
	void start_sending(Connection &c);
	void stop_sending(Connection &c);
	void fall_back(Connection &c);
	void reconnect(Connection &c);
	void await_other(Connection &c);
	void retire(Connection &c);	// Destroy done: unlink; freed by the housekeeping work
	bool path_copy(const HwAddr &peer, kapi_cm_path *out);
	void rc_sent(u32 n);		// NAPI: n RC sends completed (the interface-wide bound)
	// NAPI: an identity message (cm::IdentMsg, after the encapsulation header) received
	// over UD from src_qp, or over the RC connection local_qpn to peer; consumed, counted.
	void on_ident_ud(u32 src_qp, const u8 *msg, u32 len);
	void on_ident_rc(const HwAddr &peer, u32 local_qpn, const u8 *msg, u32 len);
	// ForceDestroy: n sends of a connection freed unsent or never completed:
	// dropped, counted cm_tx_drop_teardown (tx_dropped), and their slots released.
	void rc_destroyed(u32 n);
	void rx_touched(Connection &c);	// NAPI: c's own ring completed a receive in this poll
	void rx_untouch(Connection &c);	// NAPI: c reports RxEmpty (may be destroyed after it)
	void rx_stop_request(Connection &c);	// work item, at QpToErr (non-SRQ): NAPI stops c's ring
	// The graceful waits (docs/connected.md §4): a wait's deadline, given its own bound
	// (until), is the earlier of it and the cut interface stop sets (stop_begin); wake_at
	// has the housekeeping work run by `when` to resume a parked wait at its deadline.
	u64 wait_deadline(u64 until) const;
	void wake_at(u64 when);

private:
	CmPeer *find(const HwAddr &a) { return index_.find(a); }	// lock or tx lock held
	Verdict send_rc(CmPeer &p, kapi_skb *skb, u64 now);	// tx lock held, may_send(p.send)
	void post_rc(Connection &c, kapi_skb *skb, u64 now);	// tx lock held, slot reserved
	CmPeer *find_or_add(const HwAddr &a, Gfp gfp);	// lock held; nullptr at cm_max_peers (counted)
	// ib_cm's context, no lock held: the REQ refused with our private data (RFC 4755 §3.2)
	// and reason; nullptr, which has the shim return non-zero so ib_cm destroys the id.
	kapi_ctx *refuse(kapi_cm_id *id, u8 reason);
	// Lock held; the new connection's feed notes go to notes (printed after the unlock).
	Connection *connect(CmPeer &p, u64 now, Gfp gfp, FeedNotes &notes);
	static bool may_carry(const Connection *c);	// lock held: not draining or closed, or its peer decision is queued
	static bool may_send(const Connection *c);	// may take a packet now: not draining or closed
	void free_dead();
	bool over_limit() const;
	bool fit_cq(u32 ud_entries);	// start(): max_conns_ from the device's max_cqe
	u32 cq_fixed() const;		// CQ entries connected mode needs whatever the connections
	u32 cq_per_conn() const;	// CQ entries per connection
	cm::Config config(cm::Dir d, u8 stale_retries, u8 crossing_waits = 0) const;
	template <typename F> void for_each_conn(F f);
	// Schedule the housekeeping work in ms unless teardown stopped it or it is due sooner
	// (a parked wait's deadline, wake_at, is not postponed by a later request).
	void kick_house(u32 ms);
	void resume_due_waits(u64 now);	// stop's wait loop: parked waits past their deadline
	// Lock held: c becomes p's send path (the caller then flushes p's queue over it).
	void publish(CmPeer &p, Connection &c);
	// The tx queue's xmit lock held, lock_ not: p's pending queue over its send path, oldest
	// first, while the send bound has room; the rest stays queued, in order,
	// and backlog_ asks the flush work to continue once sends complete.
	void flush(CmPeer &p, u64 now);
	// The peers whose flush stopped at the bound (backlogged_), oldest first: the flush work
	// rc_sent kicks, and each housekeeping run. Takes the xmit lock.
	void flush_backlogs(u64 now);
	void kick_flush();	// NAPI or any context: the flush work, unless teardown stopped it
	// cm_xmit_rc's context (ipoib_cm_send.h): the table lock, the backlog, the bound, the post.
	struct RcOrder {
		CmTable &t;
		u64 now;
		kstd::SpinIrqSaveGuard guard() { return kstd::SpinIrqSaveGuard(t.lock_); }
		CmBacklog<CmPeer> &backlog() { return t.backlogged_; }
		bool may_flush(CmPeer &p) const;
		CmBacklog<CmPeer, CmConnLink> &conn_waiters() { return t.conn_waiters_; }
		CmSlot reserve(CmPeer &p) { return t.rc_reserve(*p.send, now); }
		void unreserve() { t.rc_unreserve(); }
		void post(CmPeer &p, kapi_skb *skb) { t.post_rc(*p.send, skb, now); }
		void held(u32 fresh) { t.flush_held(fresh); }
		void conn_held(CmPeer &p, u32 fresh) { t.conn_held(*p.send, fresh); }
		void reserve_held(CmPeer &p, u32 fresh) { t.reserve_held(*p.send, fresh); }
	};
	// A flush stopped at the bound with `fresh` packets left behind for the first time:
	// counted (cm_tx_flush_held), the flush work asked for.
	void flush_held(u32 fresh);
	void conn_held(Connection &c, u32 fresh);	// the same at c's own bound (conn_wait_)
	void reserve_held(Connection &c, u32 fresh);	// the same at the reserve (cm_tx_reserve_held, conn_wait_)
	Connection *candidate(CmPeer &p);	// lock held: a connection of p that may send
	// ---- identity proofs (ipoib_cm_ident.cpp)
	enum class LidCheck { Unknown, Match, Mismatch };
	// Not under lock_ (the path lock): the REQ's requester LID against our path record.
	LidCheck lid_check(const u8 *gid, u32 req_lid);
	// Lock held: an accepted passive connection c becomes p's, filed as one-way or put to its proof.
	void file_passive(CmPeer &p, Connection &c, LidCheck lid, u64 now);
	// Lock held, a pool slot held by c: the REQ fed to c, c filed under its peer if accepted.
	void on_req_locked(Connection &c, kapi_cm_id *id, const kapi_cm_event &ev, cm::PrivDataResult res,
			   const cm::PrivData &pd, const cm::Caps &caps, const HwAddr &peer, const HwAddr &me,
			   LidCheck lid, cm::SidKind kind, FeedNotes &notes);
	bool proof_holds(const CmPeer &p, u64 now) const;	// lock held: xmit waits for it
	void send_probe(const HwAddr &to, u32 qpn, u64 nonce);	// no lock: over UD
	// The flush work / housekeeping: proofs past their deadline or due a probe (ident_tick),
	// proven connections published and echoes sent (ident_run: takes the xmit lock).
	void ident_tick(u64 now);
	void ident_run(u64 now);
	void backlog_round(u64 now);	// flush_backlogs without the identity duties
	void ident_clear();		// lock held, interface stop: no proof open, no echo queued
	// Lock held: c of p was just proven; the connections it replaces are closed (a restart).
	void retire_replaced(CmPeer &p, Connection &c, FeedNotes &notes);
	struct CmEcho {
		HwAddr peer;
		u32 qpn = 0;
		u64 nonce = 0;
		u64 until = 0;	// 0: free
	};
	static constexpr u32 kCmEchoes = 8;	// echoes waiting for the flush work
	static constexpr u32 kCmEchoMs = 2000;	// how long one waits for its connection to offer

	Interface &ifc_;
	CmParams p_;
	kstd::SpinLock lock_;
	kstd::List<CmPeer> peers_;
	CmPeerIndex<CmPeer> index_;	// peers_ by address (lock_)
	cm::GidBars<cm::kGidBars> gid_bars_;	// lock_: the reserve's bars by GID (gid_bar_keep)
	kstd::List<Connection> conns_;
	kstd::List<Connection> dead_;	// destroyed, waiting to be freed
	u32 nconns_ = 0;		// connections with a QP slot (limit)
	u32 reap_pass_ = 0;		// teardown only: reap_stuck's pass (Connection::reap_pass)
	ReqPool pool_;			// passive connections still accepting (ipoib_cm_admission.h)
	ReqPool unproven_;		// passive connections whose peer is not proven (the same)
	ReqPool unreserved_;		// ... one-way ones past their first receive included
	RecvGrowBudget rx_budget_;	// what the non-SRQ rings' growth pins together
	LogLimit peer_log_;		// peer_log()
	LogLimit fallback_log_;		// fall_back()'s lines (peer_log())
	kapi_cm_id *listen_[2] = {};
	kapi_wq *wq_ = nullptr;
	kapi_dwork *house_ = nullptr;
	kapi_dwork *flush_ = nullptr;	// flush_backlogs alone (not all of housekeeping), gated by house_on_ too
	bool house_on_ = false;		// lock_: house_ may be scheduled (start() .. teardown())
	u64 house_due_ = ~0ull;		// lock_: when house_ is scheduled to run (~0: none, or running)
	u64 waits_cut_ = ~0ull;		// atomic: no graceful wait lasts beyond (interface stop)
	CmSrq srq_;
	RcStats srq_st_;
	bool srq_rearm_ = false;	// SRQ_LIMIT_REACHED disarmed the limit (one-shot)
	RecvRing srq_ring_;
	u32 recv_mtu_ = 0;
	u32 nsge_ = 1;
	u32 send_ring_ = 0;
	u32 rc_send_sge_ = 1;	// min(device max_send_sge, KAPI_RC_SEND_SGE_MAX), at least 1
	u32 recv_queue_ = 0;
	u32 max_conns_ = 0;		// connections the receive CQ may grow to (start(): max_cqe)
	u32 cq_conns_ = 0;		// cq_lock_ (reads relaxed): connections the receive CQ holds now
	u32 cq_ud_ = 0;			// the UD receives' share of the CQ
	u64 cq_resizes_ = 0;		// cq_lock_: ib_resize_cq calls that grew the CQ
	u64 cq_resize_failed_ = 0;	// cq_lock_: and that failed (the connection not set up)
	kstd::Mutex cq_lock_{KAPI_LOCK_IF_CQ};	// one resize at a time (connection setup runs concurrently)
	Connection *napi_touched_ = nullptr;	// NAPI only: rx_touched() since the last after_poll(),
						// and the rings that need a retry (needs_retry)
	Connection *rx_stops_ = nullptr;	// lock_: rx_stop_request() not yet run by NAPI
	bool rx_retry_ = false;		// a ring needs another NAPI pass (refused posts, nothing posted)
	bool backlog_ = false;		// atomic: a flush stopped at the RC bound (rc_sent kicks the flush work)
	CmBacklog<CmPeer> backlogged_;	// lock_: the peers whose queue waits for the bound
	CmBacklog<CmPeer, CmConnLink> conn_waiters_;	// lock_: ... for their own connection's
	bool conn_wait_ = false;	// atomic: a peer waits on its connection or the reserve (rc_sent kicks the flush work)
	bool connected_ = false;	// admin mode (mode_changed); datagram at creation
	bool open_ = false;
	bool send_accepted_ = false;	// the test knob (atomic: debugfs writes, connect/on_req read)
	cm::Counters retired_;		// of destroyed connections
	RcStats retired_st_;
	CmIfStats ifs_;
	u64 rej_tx_[cm::kRejCodeCount] = {};	// count_rej (atomic increments)
	u64 rej_rx_[cm::kRejCodeCount] = {};
	RcSendBudget budget_{ifs_.cm_inflight_underflows};	// RC sends in flight, all connections
	CmEcho echoes_[kCmEchoes];	// lock_
	u32 proofs_open_ = 0;		// lock_: peers with `proving` set
	bool ident_due_ = false;	// atomic: ident_run has work
};

} // namespace ipoib
