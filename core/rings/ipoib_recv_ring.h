// SPDX-License-Identifier: GPL-2.0
// ipoib_recv_ring.h - the one receive ring: a ring of receive buffers posted to one receive
// queue, serving the UD QP's queue (datagram mode), the interface's SRQ and each non-SRQ RC
// QP's own queue (connected mode, docs/connected.md §5). RecvQueue says which; it decides
// only what an error or flush completion does, whether small packets are copied and whether
// the ring grows and shrinks. Everything else is one implementation:
//
// Replacement first, never zero (docs/design.md §4 item 2): complete() hands a filled buffer up only
// once a fresh one took its slot; when none can be had, the packet is dropped (counted) and
// the same buffer queued again, so allocation failure never lowers posted() after repost().
//
// Refused completions: each slot knows whether its buffer is posted; a completion for a slot
// that is not (a duplicate CQE, a stale wr_id) is refused, counted in refused() and warned
// once, never handed up nor queued twice. So is a success whose byte_len exceeds buf_size
// (the HCA wrote past the SGEs we posted: IBA 11.4.2.1 would make that a local length error).
//
// Errors and flushes: on the SRQ the buffer is reposted (the SRQ outlives any one QP); on a
// non-SRQ RC queue any error stops the ring (IBA 10.3.1: a receive error moves an RC QP to
// ERROR); on the UD queue an error is reposted and a flush (the QP is in ERROR: teardown)
// stops it. Stop/empty: the owner calls stop() when it moves the QP to ERROR or tears the
// queue down; no post after it, and only a stopped ring can be empty(), so "nothing posted
// because the provider refused a post" on a live QP (needs_retry()) is never mistaken for
// the teardown fence's RxEmpty (§4).
//
// Buffers: a linear head (its skb's data is SGE 0) and, in connected mode, order-0 pages
// (SGEs 1..), so no high-order allocation is needed for the 65524-byte Receive MTU (RFC 4755
// §4: at most 2^16 - 4 octets incl. the 4-octet IPoIB header; kMaxRecvMtu): 17 SGEs, a head
// of 256 bytes (what 16 pages leave over, at least kFragHeadMin: frag_head_len) and 16
// pages. The SGE count is what a head of at most kFragHeadMax (its skb fits one page:
// ipoib_frag.h) needs; a device with 16 SGEs gets 65152 bytes (receive_mtu): a 3712-byte
// head and 15 pages. The UD ring's buffer is its head alone (one SGE of the
// broadcast group's MTU + the GRH, RFC 4391 §6). A slot's buffer (RxBuf) is allocated when the
// slot is first used, so an unused slot costs 8 bytes (an idle non-SRQ ring pins only its
// active buffers, and no slot table needs a high-order kmalloc).
//
// Owner: Interface (UD), CmTable (SRQ) or one Connection (non-SRQ), as a member. Holds: per
// active slot an RxBuf, which owns its head skb, its pages and their DMA mappings, so
// release() is member destruction. Who may still reference a slot: the HCA, for every posted
// buffer, until its completion is polled or the QP/SRQ is destroyed; release() runs after
// that (the destructor is the backstop). Single consumer: NAPI (fill, complete, repost,
// adapt); post_initial() runs in process context before NAPI can see the ring; other
// contexts only ask for the UD fill (want_fill, from the broadcast join) and schedule NAPI.
// posted(), active(), grows(), shrinks() and bytes() may be read from any context (debugfs).
//
// Memory accounting (docs/connected.md §5.1): bytes() is what the ring holds
// right now, counted where it is allocated and freed rather than inferred from free pages:
// its slot table and FIFO (alloc() to release()) and per buffer, posted or queued (or held
// after a stopping error), the head skb's truesize (its sk_buff, its data allocation and
// shared info, as the kernel charges it), the pages (KAPI_PAGE_SIZE each), the RxBuf and its
// page array. Not counted: the allocator's rounding of the small objects (the RxBuf, the
// tables), and the provider's WQE arrays (the QP's, not the ring's). Single writer (whoever
// owns the ring at the time: NAPI, or process context before NAPI can see it or at
// teardown); release() brings it back to 0.
#pragma once

#include "core/rings/ipoib_frag.h"
#include "core/ipoib_handles.h"
#include "core/rings/ipoib_rings.h"
#include "core/rings/ipoib_wrid.h"

namespace ipoib {

// The queue a ring posts to, and so what its error completions mean.
enum class RecvQueue : kstd::u8 {
	Ud,	// the UD QP's queue: errors reposted, a flush stops the ring; no copybreak
	Srq,	// connected mode's SRQ: errors and flushes reposted
	RcQp,	// one non-SRQ RC QP's own queue: any error stops the ring; grows when low
};

// The queue's verbs object: a QP's own receive queue or an SRQ.
struct RecvTarget {
	kapi_qp *qp = nullptr;
	kapi_srq *srq = nullptr;
	int post(u32 lkey, const kapi_recv *r, int n) const
	{
		return srq ? kapi_post_srq_recv(srq, lkey, r, n) : kapi_post_recv(qp, lkey, r, n);
	}
	int post(u32 lkey, const kapi_recv_sg *r, int n) const
	{
		return srq ? kapi_post_srq_recv_sg(srq, lkey, r, n) : kapi_post_recv_sg(qp, lkey, r, n);
	}
};

// The counters a ring updates (single writer: NAPI; post_initial's before NAPI runs). The
// growth counters may be null (a ring that never grows: UD, SRQ).
struct RecvCounters {
	u64 *nomem;			// no replacement buffer: packet dropped, the same buffer reposted
	u64 *wc_errors;			// error completion other than a flush
	u64 *flushed;			// flush completion
	u64 *post_errors;		// the provider refused a post (the rest stays queued)
	u64 *grown = nullptr;		// RcQp: buffers added by adapt (growth)
	u64 *grow_failed = nullptr;	// RcQp: growth stopped for want of memory (harmless)
	u64 *shrunk = nullptr;		// RcQp: buffers retired after an idle period
	u64 *refused = nullptr;		// completions refused (refused(): ethtool rc_rx_refused, rx_refused)
	u64 *left_empty = nullptr;	// RcQp: a poll's repost left the live QP with nothing posted
	u64 *grow_refused = nullptr;	// RcQp: growth refused by the budget or the per-ring cap: each
					// refusal once, not each attempt (RecvRing::grow_refused)
};

// What the non-SRQ RC receive rings of one interface together may pin beyond their floors
// (nonsrq_grow_mb; docs/connected.md §5). A ring charges each buffer its growth adds and
// uncharges it when the buffer retires or the ring is released; the floor (nonsrq_min_recv,
// at least one receive on every RC QP) is never charged, so a refusal never takes a QP's
// last receive. Any context (atomics); the default limit is unbounded.
class RecvGrowBudget {
public:
	void set_limit(u64 bytes) { __atomic_store_n(&limit_, bytes, __ATOMIC_RELAXED); }
	u64 limit() const { return __atomic_load_n(&limit_, __ATOMIC_RELAXED); }
	u64 used() const { return __atomic_load_n(&used_, __ATOMIC_RELAXED); }
	// bytes more, or false (nothing charged) when they would pass the limit
	bool charge(u64 bytes)
	{
		u64 v = used();
		do {
			if (v + bytes > limit() || v + bytes < v)
				return false;
		} while (!__atomic_compare_exchange_n(&used_, &v, v + bytes, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
		return true;
	}
	void uncharge(u64 bytes)	// never below zero
	{
		u64 v = used();
		while (!__atomic_compare_exchange_n(&used_, &v, v > bytes ? v - bytes : 0, false, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED)) {
		}
		if (bytes)
			__atomic_add_fetch(&frees_, 1, __ATOMIC_RELAXED);
	}
	// How many times anything was given back: a ring refused by the budget counts a new
	// refusal only after this moved (rc_rx_grow_refused, RecvRing::grow_refused).
	u64 frees() const { return __atomic_load_n(&frees_, __ATOMIC_RELAXED); }

private:
	u64 limit_ = ~0ull;
	u64 used_ = 0;
	u64 frees_ = 0;
};
// A buffer's charge: its fixed part (RxBuf, page array, pages) and a head skb's truesize.
inline constexpr u32 kRecvHeadCharge = 1280;

// The loss the non-SRQ guarantee rules out (docs/connected.md §5): once a poll's completions
// are handled and its reposts made, a live (not stopped) per-QP ring has at least one receive
// posted. Between a completion and its repost a ring of one is empty by design (RNR retry
// covers the gap); at the end of the batch it must not be, or a sender with a finite retry
// count loses its message. Pure, so the rule is tested on the host.
inline bool rc_left_empty(RecvQueue q, bool stopped, u32 posted)
{
	return q == RecvQueue::RcQp && !stopped && posted == 0;
}

// One slot's buffer, every part owned: destroying it unmaps the head (head_map is declared
// after head, so it goes first) and frees the skb, and each page is unmapped and put by its
// MappedPage. A buffer is posted, queued, or held (after a stopping error), never two of these.
struct RxBuf {
	SkbHandle head;			// the linear area: SGE 0
	DmaMap head_map;
	Array<MappedPage> pages;	// SGEs 1..: none on the UD ring
	u32 head_bytes = 0;		// the head skb's truesize (memory accounting: RecvRing::bytes)
	bool posted = false;		// the HCA holds it: its one completion is still to come
};

// Copybreak: a packet of at most this many bytes is copied into an skb of its size (from the
// head, then the pages it reached) and the same buffer reposted: no replacement allocation
// or mapping, and the stack is charged the copy's truesize instead of a head and pages. The
// in-tree IPOIB_CM_COPYBREAK is 256 (ARP, TCP ACKs), copied from its 4084-byte head; ours is
// kFragHeadMax: every packet a head of kFragHeadMax bytes would hold alone (a 1400-byte
// datagram, say) still goes up as one linear skb although the head is 256 bytes
// (ipoib_frag.h) and such a packet reaches the first page: copying at most 3712 bytes
// costs less than a fresh page, its mapping and a second allocation per packet.
// Connected mode only: the UD path keeps the in-tree driver's behaviour (no copy).
inline constexpr u32 kRcCopybreak = kFragHeadMax;

// A non-SRQ ring that saw no demand (no batch that consumed 3/4 of its buffers) for this long
// shrinks back to what post_initial() posted (nonsrq_min_recv): long enough that a flow with
// pauses (a TCP sender in slow start, an RPC pattern) keeps its buffers, short enough that a
// burst's growth does not stay pinned for the connection's life (docs/connected.md §5).
inline constexpr u64 kRcShrinkIdleMs = 5000;

// A ring of one buffer finds "3/4 consumed" on every completion, so for it that signal says
// nothing about rate. The rule: it grows (1 -> 2, then the 3/4 rule doubles it) at the
// kRcGrowStreak1-th of such NAPI windows each no more than kRcGrowGapMs after the one before.
// Derivation (docs/connected.md §5): a stream held by a ring of one delivers its next message
// one RNR NAK delay (cm_min_rnr_timer: 0.16 ms; softib waits at least a jiffy, 4 ms at
// HZ=250) plus one NAPI repost after the previous one, so its windows come well within 100 ms
// even on the debug kernel under TCG (a 20 ms gap with a run of 4 was exceeded there);
// sporadic traffic comes further apart: ping's default interval is 1 s, TCP keepalives
// seconds (ARP and ND go over UD). Each window at a ring of one costs the sender about one
// RNR NAK, so the ramp to nonsrq_max_recv = 32 costs about kRcGrowStreak1 + log2(32) NAK
// episodes per end. 3: a lone ping, and a setup burst of two (the packets held while the
// connection was set up, sent back to back: one or two echo requests at the bench's
// ping -i 0.2 when setup takes under 0.4 s), leave each end at one buffer; growing at the
// first completion (1) would pin two 69 KiB buffers per end for every connection that
// carried one packet. The price, two more NAK episodes per end at a stream's start, is
// within ipoib-cm-bidir's ramp bound (64 + 1/100, stock and debug; the debug kernel's NAKs
// are mostly a full ring's backpressure, not the ramp). For infinite RNR retry only: with a
// finite cm_rnr_retry a NAK spends a retry, and the ring grows at its first low window
// (RecvRing::rnr_retry_finite).
inline constexpr u32 kRcGrowStreak1 = 3;
inline constexpr u64 kRcGrowGapMs = 100;

// Multi-SGE receives posted per call (the shim converts them on its stack).
inline constexpr u32 kRcPostBatch = KAPI_RECV_SG_BATCH_MAX;
static_assert(1 + kFragPages <= KAPI_RECV_SGE_MAX, "a head and every page must fit one receive WR");

class RecvRing : kstd::NonCopyable {
public:
	RecvRing(kapi_ib_device *ib, RecvQueue q, const RecvCounters &c) : ib_(ib), q_(q), c_(c) {}
	~RecvRing() { release(); }

	// SGEs a connected-mode buffer of buf_size bytes takes: the head, then one per page.
	static u32 sges_for(u32 buf_size);
	// The Receive MTU (RFC 4755 §6 private data, IPoIB header included) that buffers of at
	// most max_sge SGEs really hold, for a wanted buf_size (docs/design.md §4 item 5: advertise
	// what the buffers hold, never more). 0 when max_sge is 0.
	static u32 receive_mtu(u32 buf_size, u32 max_sge);

	// Process context. max_entries slots (the SRQ's max_wr, the QP's max_recv_wr) of
	// buf_size-byte buffers. Connected mode: buf_size is a receive_mtu() result (Invalid if
	// it needs more SGEs than a WR has, or is 0). UD: buf_size 0, set later by want_fill().
	Status alloc(u32 max_entries, u32 buf_size = 0);
	// RcQp, before post_initial(): growth charges budget (may be null: unbounded) and stops
	// at cap buffers (0: size()), what one connection may hold. Refusals are counted.
	void set_growth_bounds(RecvGrowBudget *budget, u32 cap)
	{
		budget_ = budget;
		cap_ = cap;
	}
	u32 charged() const { return __atomic_load_n(&charged_, __ATOMIC_RELAXED); }	// debugfs, tests
	u64 charge_unit() const { return u64(buf_fixed_) + kRecvHeadCharge; }	// per grown buffer
	void bind(kapi_netdev *nd, RecvTarget target, u32 lkey)
	{
		nd_ = nd;
		target_ = target;
		lkey_ = lkey;
	}

	// UD. Any context: the ring is to be filled with buffers of buf_size bytes (the first
	// size asked for is kept; buf_size() is valid from here on). NAPI does the fill.
	void want_fill(u32 buf_size);
	bool fill_wanted() const { return buf_size() != 0; }
	// UD, NAPI (or before NAPI can see the ring): gives every slot a buffer and posts it.
	// Resumable: after a failure (no memory) the buffers already posted stay posted, and the
	// next call only fills the slots still empty. Ok once every slot holds a buffer.
	Status fill(u32 buf_size);
	bool filled() const { return __atomic_load_n(&filled_, __ATOMIC_ACQUIRE); }

	// Connected mode, process context (GFP_KERNEL): posts buffers until n (<= size()) are
	// active: the non-SRQ QP in INIT before its REQ/REP (n = nonsrq_min_recv), the SRQ at
	// bring-up (n = its size). Ok only when all n are posted; otherwise the caller tears down.
	Status post_initial(u32 n);

	// NAPI: one receive completion of this ring (wr_id = wrid(UdRecv or RcRecv, slot)).
	// Success: the filled skb (head, then page frags; len = byte_len) after a fresh buffer
	// took the slot; in connected mode one of at most kRcCopybreak bytes is a small copy and
	// the same buffer is queued (copied()). nullptr when no replacement (or copy) could be had
	// (drop counted, the same buffer queued), for errors and flushes (RecvQueue's rule) and
	// for refused completions.
	kapi_skb *complete(const kapi_wc &wc);
	// NAPI, after a batch: posts what complete() queued, in chains (kPollBatch one-SGE, or
	// kRcPostBatch multi-SGE receives); what the provider refuses stays queued, in order
	// (counted). Nothing once stopped.
	void repost();
	// Retry duty: a refused post leaves its buffers queued. While some receive is still
	// posted its completion brings NAPI back and the next repost() retries; when none is
	// (needs_retry()), no completion will come, so the owner must: after each NAPI pass it
	// checks needs_retry() and, when true, schedules another pass later (its timer or work
	// item re-schedules NAPI, which calls repost()). Never true once stopped.
	bool needs_retry() const { return !stopped_ && posted_ == 0 && queue_.size(); }
	// RcQp, NAPI, after a batch and before repost() (now_ms: the clock). Grow: when at
	// least 3/4 of the buffers the ring has completed since the last call (a window whose
	// completions were all retirements is no demand for a ring of one) (the sender nearly ran
	// the queue dry between two polls: the count ignores reposts made in between, which the
	// HCA may not have seen yet), doubles the active buffers (a ring of one: at the
	// kRcGrowStreak1-th of such windows, each within kRcGrowGapMs of the one before), up to size() and at most
	// kPollBatch per call (GFP_ATOMIC, in NAPI). A failure stops the growth there (counted)
	// and changes nothing else. With a NAPI budget B, one window sees at most about B
	// completions, so a ring grows past 4B/3 only when polls drain more than B between two
	// calls. Shrink: when the ring saw no completion for kRcShrinkIdleMs, the ring's goal
	// drops back to what post_initial() posted (never below one); complete() then hands up
	// completed buffers without replacing them until active() is down to it (counted in
	// shrunk), and stays there until demand. A posted receive is never cancelled, so never
	// zero holds: active() >= 1, and every active buffer is posted or queued; and a ring
	// that gets no completion at all after growing keeps its buffers (until traffic or the
	// idle reap). Nothing on the UD ring or SRQ.
	void adapt(u64 now_ms);
	// RcQp, before post_initial(): whether the peer's sends into this ring give up after a
	// finite number of RNR NAKs. The peer retries them as this end's cm_rnr_retry says (our
	// REQ sets the passive peer's rnr_retry, our REP the active peer's: docs/connected.md §3),
	// and below 7 (IBA 9.7.5.2.8: 7 = infinite) a message that meets more NAKs in a row than
	// that completes in error and the connection dies. Each low window of a ring of one is a
	// window whose messages may meet an empty queue, so with a finite count a ring of one
	// grows at its first low window (streak of 1); kRcGrowStreak1's
	// longer run (fewer buffers for a lone ping) is only for infinite retry, where a NAK
	// costs time, not the connection.
	void rnr_retry_finite(bool finite) { streak1_ = finite ? 1 : kRcGrowStreak1; }
	// The owner's QpToErr (non-SRQ) or SRQ teardown: no post from now on (queued buffers
	// stay the ring's until release()); empty() reports when the last posted one completed.
	// When nothing was posted at stop() (refused posts), empty() is true at once and no
	// completion will say so: the owner checks empty() right after stop() as well as after
	// each receive completion. Any context that excludes NAPI's use of the ring (or NAPI).
	void stop() { stopped_ = true; }
	// UD, the QP repaired from ERROR (Interface::repair_ud_qp), NAPI off: the QP was moved
	// to RESET and on to RTS, and a reset empties its receive queue (IBA 10.3.1) with no
	// completion for what it discards. Every buffer the ring holds (flushed and held,
	// discarded while posted, or queued) is queued again, in slot order, and posted: the
	// same buffers, no allocation; the ring is live again (not stopped).
	void restart();
	// Teardown, after the QP/SRQ is destroyed (or every posted buffer's completion polled):
	// every buffer unmapped and freed (the RxBufs' destruction), and the slot table and FIFO
	// freed (bytes() == 0; the ring may be alloc()ed again).
	void release();

	u32 posted() const { return __atomic_load_n(&posted_, __ATOMIC_RELAXED); }
	// The fence's RxEmpty: stopped and every posted receive completed.
	bool empty() const { return stopped_ && posted() == 0; }
	bool stopped() const { return stopped_; }
	// Completions refused (slot not posted, byte_len over buf_size); the owner may export it.
	u64 refused() const { return __atomic_load_n(&refused_, __ATOMIC_RELAXED); }
	// Packets handed up as copies (copybreak); the owner may export it.
	u64 copied() const { return __atomic_load_n(&copied_, __ATOMIC_RELAXED); }
	u32 active() const { return __atomic_load_n(&active_, __ATOMIC_RELAXED); }	// slots holding a buffer (any context)
	u32 goal() const { return goal_; }	// what active() converges to (RcQp)
	// Buffers added by growth / retired by shrinking, over the ring's life (debugfs).
	u64 grows() const { return __atomic_load_n(&grows_, __ATOMIC_RELAXED); }
	u64 shrinks() const { return __atomic_load_n(&shrinks_, __ATOMIC_RELAXED); }
	u32 size() const { return slots_.size(); }
	u32 queued() const { return queue_.size(); }
	// Bytes the ring holds now (see the header comment; debugfs rx_kib=, ethtool rc_*_pinned_kib).
	u64 bytes() const { return __atomic_load_n(&bytes_, __ATOMIC_RELAXED); }
	u32 buf_size() const { return __atomic_load_n(&buf_size_, __ATOMIC_ACQUIRE); }
	u32 nsge() const { return 1 + npages_; }
	bool on_srq() const { return q_ == RecvQueue::Srq; }

private:
	void set_layout(u32 buf_size);
	u32 free_slot();
	Status post_until(u32 n, Gfp gfp);	// activates slots [active_, n), then reposts
	Status activate(u32 idx, Gfp gfp);	// slot idx gets its RxBuf, with a buffer
	Status alloc_head(SkbHandle &head, DmaMap &map, Gfp gfp);
	void queue(u32 idx);
	void refuse();
	void copy_out(u64 dma, const kstd::u8 *from, u32 n, kstd::u8 *to);
	kapi_skb *copy_small(RxBuf &b, u32 len);
	kapi_skb *take(RxBuf &b, u32 len);
	kapi_skb *retire(u32 idx, u32 len);
	enum class GrowRefusal : kstd::u8 { None, Cap, Budget };
	void grow();
	void grow_refused(GrowRefusal why);	// counts it unless it is the refusal counted last
	kapi_skb *settle(u32 idx, RxBuf &b, const kapi_wc &wc);
	void post_linear();	// repost()'s chains, one SGE per receive
	void post_sg();		// and with pages
	bool took(u32 n, int rc);
	void set_posted(u32 n) { __atomic_store_n(&posted_, n, __ATOMIC_RELAXED); }
	void set_active(u32 n) { __atomic_store_n(&active_, n, __ATOMIC_RELAXED); }
	// bytes_ += add - sub (single writer; relaxed, read by debugfs/ethtool)
	void account(u64 add, u64 sub) { __atomic_store_n(&bytes_, bytes_ + add - sub, __ATOMIC_RELAXED); }
	u64 buf_bytes(const RxBuf &b) const { return buf_fixed_ + b.head_bytes; }
	void uncharge_one();	// a charged buffer retired
	u32 page_len(u32 i) const { return i + 1 < npages_ ? u32(KAPI_PAGE_SIZE) : last_len_; }

	kapi_ib_device *ib_;
	RecvQueue q_;
	RecvCounters c_;
	kapi_netdev *nd_ = nullptr;
	RecvTarget target_;
	u32 lkey_ = 0;
	u32 buf_size_ = 0;
	u32 head_len_ = 0;	// SGE 0
	u32 npages_ = 0;	// SGEs 1..npages_
	u32 last_len_ = 0;	// the last page's SGE length
	u32 copybreak_ = 0;
	u32 buf_fixed_ = 0;	// a buffer's bytes but its head: the RxBuf, its page array, the pages
	u32 posted_ = 0;
	u32 consumed_ = 0;	// completions since the last adapt()
	u32 retired_ = 0;	// of them, those whose buffer was retired (shrink), not replaced
	u32 active_ = 0;	// slots holding a buffer (slots_[i] set)
	u32 goal_ = 0;	// RcQp: growth raises it, an idle period lowers it to floor_
	u32 floor_ = 1;		// RcQp: what post_initial() posted, at least 1
	u32 free_hint_ = 0;	// no slot below it is free
	u64 busy_ms_ = 0;	// RcQp: the last adapt() that saw a completion (0: none yet)
	u32 streak_ = 0;	// RcQp: low windows in the current run, each within kRcGrowGapMs (streak1_)
	u32 streak1_ = kRcGrowStreak1;	// RcQp: the run a ring of one grows at (rnr_retry_finite)
	u64 grows_ = 0;
	u64 shrinks_ = 0;
	u64 refused_ = 0;
	u64 copied_ = 0;
	u64 bytes_ = 0;		// bytes(): what the ring holds
	RecvGrowBudget *budget_ = nullptr;	// RcQp: set_growth_bounds
	u32 cap_ = 0;		// RcQp: most buffers (0: size())
	u32 charged_ = 0;	// RcQp: buffers growth added and budget_ holds the charge of
	// RcQp: what refused the last growth attempt, counted once (grow_refused): again only
	// after the ring grew, or, for the budget, once the budget gave something back
	// (RecvGrowBudget::frees() moved past grow_refused_frees_).
	GrowRefusal grow_refusal_ = GrowRefusal::None;
	u64 grow_refused_frees_ = 0;
	bool warned_ = false;	// refuse() warns once per ring
	bool stopped_ = false;	// stop(), or an error completion that stops (RecvQueue)
	bool filled_ = false;	// UD: every slot holds a buffer
	Array<kstd::Unique<RxBuf>> slots_;
	SlotFifo queue_;	// slots waiting to be posted
};

} // namespace ipoib
