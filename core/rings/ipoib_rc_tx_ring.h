// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_tx_ring.h - the send ring of one RC QP (connected mode, RFC 4755): one slot per
// posted send (skb + one DMA mapping per SGE: its head and each page fragment),
// the checksum rule per packet (cm::tx_csum), free-running producer/consumer indices, and what the send
// watchdog reads (docs/connected.md §3: cm::send_stalled over the outstanding count and the
// time of the last progress, cm::SendClock's rule).
//
// Memory (docs/connected.md §5, "What an idle connection pins"): a slot is 32 bytes; the
// fragments' mappings (up to KAPI_RC_SEND_SGE_MAX - 1 per send) live in rows allocated in
// chunks of kTxRowsPerChunk slots the first time a slot of that chunk posts a fragmented skb
// (GFP_ATOMIC, one kmalloc-2k object each), so a connection that only ever sent linear
// packets (ARP, ping, TCP ACKs) pins no gather table at all; and a connection that sent
// fragmented skbs once gives the chunks back when it has been quiet (trim(): no send
// outstanding and no fragmented send for kTxGatherIdleMs, checked by the housekeeping work,
// never in the send path). bytes() is what the ring holds: its slot array, its chunk table
// and the chunks (debugfs tx_kib=, ethtool rc_tx_pinned_kib).
//
// Owner: one Connection. Holds: per posted send one skb and its DMA mappings (the head's in
// the slot, the fragments' in the slot's row). Who may still
// reference a slot: the HCA, from post() until its completion is polled (sends complete in
// order on one QP, IBA 10.8.3; the QP is created IB_SIGNAL_ALL_WR); drain() runs after the
// QP was destroyed. Producer: xmit under the netif tx lock (StartSending's queue flush takes
// that lock too); consumer: NAPI. The watchdog reads both indices from the CM work.
#pragma once

#include "core/rings/ipoib_rings.h"
#include "core/rings/ipoib_wrid.h"
#include "kstd/unique.h"
#include "core/cm/fsm/ipoib_cm_state.h"
#include "core/cm/ipoib_cm_wire.h"

namespace ipoib {

// The lengths of the mappings are the skb's (head, fragments), unchanged while it is posted;
// the head's length is kept here so that nothing at completion reads an skb it did not
// check. skb == nullptr: the slot holds no send.
struct RcTxSlot {
	kapi_skb *skb = nullptr;
	u64 head_dma = 0;
	u32 len = 0;
	u32 head_len = 0;
	u32 nsge = 0;	// head_dma, then nsge - 1 fragment mappings in the slot's row
	u32 post_ms = 0;	// producer: when it was posted (the reserve's head-of-line age and lateness)
};

// One chunk of the gather table: the fragments' mappings of kTxRowsPerChunk slots. 15 rows
// of 17 addresses are 2040 bytes: one kmalloc-2k object, never a high-order allocation.
inline constexpr u32 kTxFragsPerRow = KAPI_RC_SEND_SGE_MAX - 1;
inline constexpr u32 kTxRowsPerChunk = 15;
struct RcTxRows {
	u64 dma[kTxRowsPerChunk][kTxFragsPerRow];
};
static_assert(sizeof(RcTxRows) <= 2048, "a gather chunk is one kmalloc-2k object");

// Counters the ring updates; the producer's and the consumer's are disjoint (single writer).
struct RcSendCounters {
	u64 *packets, *bytes, *wc_errors;	// consumer (NAPI)
	u64 *drop_ring_full, *drop_dma, *drop_post;	// producer (xmit)
	// producer: sent without the L4 checksum (marked), checksummed here, checksum failed
	u64 *csum_skipped, *csum_filled, *drop_csum;
	u64 *linearized, *drop_linearize;	// producer: more fragments than SGEs
	u64 *gathered;				// producer: posted with more than one SGE
	u64 *refused = nullptr;			// consumer: completions refused (refused())
	// producer: gather chunks allocated / freed by trim() (rc_tx_gather_alloc / _freed)
	u64 *gather_alloc = nullptr, *gather_freed = nullptr;
};

// A send ring whose last fragmented send was posted this long ago, with nothing outstanding,
// frees its gather chunks (trim()). As the receive ring's kRcShrinkIdleMs: a TCP flow with
// pauses keeps them (re-allocating one is a 2 KiB GFP_ATOMIC kmalloc per 15 slots, on the
// next fragmented send), an idle connection does not pin them for its life.
inline constexpr u64 kTxGatherIdleMs = 5000;

enum class RcPost { Posted, RingFull, Dma, Post, Csum, Linearize };
// A send completion: done (the skb consumed), an error for the connection (not a flush),
// or refused: the slot it names holds no send (nothing to free, nothing completed).
enum class RcWc { Done, Error, Refused };

class RcTxRing : kstd::NonCopyable {
public:
	RcTxRing(kapi_ib_device *ib, const RcSendCounters &c) : ib_(ib), c_(c) {}
	~RcTxRing() { KSTD_WARN_ON(head_ != tail_); }

	// entries: a power of two; sge: SGEs per send wanted (1..KAPI_RC_SEND_SGE_MAX; sge() tells
	// the QP's send_sge); process context. The gather rows come later, on first use.
	Status alloc(u32 entries, u32 sge);
	void bind(kapi_qp *qp, u32 lkey)
	{
		qp_ = qp;
		lkey_ = lkey;
	}
	u32 size() const { return slots_.size(); }
	u32 sge() const { return sge_; }	// after alloc: the SGEs per send the QP must allow
	u32 outstanding() const { return __atomic_load_n(&head_, __ATOMIC_ACQUIRE) - __atomic_load_n(&tail_, __ATOMIC_ACQUIRE); }

	// Maps and posts skb as one signalled SEND (wr_id = wrid(RcSend, slot)): one SGE for the
	// head and one per page fragment; an skb with more fragments than the QP has SGEs is
	// linearized first (counted), and so is a fragmented skb whose slot has no gather row
	// and none can be had (counted in linearized too).
	// csum_free: both ends negotiated kCapCsumFree (cm::tx_csum decides per packet: marked
	// and left unfilled, or checksummed here). On anything but Posted the skb is the
	// caller's again (the failure counted).
	RcPost post(kapi_skb *skb, u64 now_ms, bool csum_free);
	// NAPI: one send completion (in order); the skb is consumed or freed. Error: an error
	// other than a flush (the caller feeds the connection a WcError). Refused: the wr_id
	// does not name the oldest outstanding send (a duplicate or stale CQE, or nothing is
	// outstanding): counted in refused(), warned once, nothing touched; the caller must not
	// count it as a completed send. lag_ms: the poll's receive backlog (cm::poll_backlog_lag),
	// not counted against the send's lateness.
	RcWc complete(const kapi_wc &wc, u64 now_ms, u64 lag_ms = 0);
	// Teardown, with the QP destroyed: every send still in the ring unmapped and freed;
	// returns how many there were. A head of line cm::kReserveHolMs old or more at now_ms
	// bars the reserve as a late completion would (cm::reserve_bar_end).
	u32 drain(u64 now_ms);
	// The send watchdog (docs/connected.md §3): sends outstanding and no progress (fewer than
	// cm::kSendProgressQuota completions, the ring never empty) for cm::kSendWatchdogMs. Any context (a racy read is fine for a 10 s backstop).
	bool stalled(u64 now_ms) const
	{
		return cm::send_stalled(outstanding(), now_ms, __atomic_load_n(&progress_ms_, __ATOMIC_RELAXED));
	}
	// Sends outstanding: how long without progress (ms); 0 when nothing is outstanding.
	// debugfs shows it as stalled= from kStallShownMs. Any context (a racy read).
	u64 no_progress_ms(u64 now_ms) const
	{
		const u64 p = __atomic_load_n(&progress_ms_, __ATOMIC_RELAXED);
		return outstanding() && kstd::i64(now_ms - p) > 0 ? now_ms - p : 0;
	}
	// May this connection take the RC bound's reserve (cm::reserve_eligible over the ring's
	// state, docs/connected.md §3): no lateness bar (cm::reserve_bar_after: its own late
	// completions, and the peer's bar it started from or was raised to), its
	// oldest outstanding send younger than cm::kReserveHolMs, and at most the last
	// completion batch plus cm::kReserveUnacked posted since that completion. Producer
	// context (the netif tx lock held: post_ms of the slots is ours). The consumer stores
	// ack_ and bar_until_ before it releases tail_, both before the caller's rc_sent fence:
	// a reader that missed a completion sees an older head of line, more sends
	// unacknowledged and the older credit and bar (a stale answer is a refusal, which
	// reserve_held re-checks after its fence; or the grant of the completion before).
	bool reserve_eligible(u64 now_ms) const
	{
		const u32 tail = __atomic_load_n(&tail_, __ATOMIC_ACQUIRE);
		const u32 hol_post = head_ != tail ? slots_[tail & (slots_.size() - 1)].post_ms : 0;
		return cm::reserve_eligible(now_ms, head_, tail, hol_post,
					    cm::ReserveAck::of(__atomic_load_n(&ack_, __ATOMIC_RELAXED)),
					    __atomic_load_n(&bar_until_, __ATOMIC_RELAXED));
	}
	// The lateness bar holds (a late completion of this ring, proportional to its lateness,
	// or the peer's bar from its earlier connections): the reserve is refused it whatever else holds
	// (cm::reserve_barred; debugfs rc_send reserve_held_late=, ethtool
	// cm_tx_reserve_held_late). Any context (a racy read).
	bool reserve_barred(u64 now_ms) const
	{
		return cm::reserve_barred(now_ms, __atomic_load_n(&bar_until_, __ATOMIC_RELAXED));
	}
	// The lateness bar (ms; 0: none) and raising it: the peer's bar, which a new ring of
	// the peer starts from and an ending one leaves behind (CmTable::reserve_bar_fold).
	// Any context: the consumer raises it too, both by compare-and-swap, never lowering it.
	u64 reserve_bar() const { return __atomic_load_n(&bar_until_, __ATOMIC_RELAXED); }
	void reserve_bar_at_least(u64 until_ms)
	{
		u64 b = reserve_bar();
		while (b < until_ms &&
		       !__atomic_compare_exchange_n(&bar_until_, &b, until_ms, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	u64 refused() const { return __atomic_load_n(&refused_, __ATOMIC_RELAXED); }
	// A successful completion of this ring was progress (cm::send_delivered): the peer took
	// traffic (its back-off may reset, docs/connected.md §3). Any context.
	bool delivered() const { return __atomic_load_n(&delivered_, __ATOMIC_RELAXED); }
	// Gather chunks held now (each kTxRowsPerChunk rows), for tests and the memory figures.
	u32 gather_chunks() const { return __atomic_load_n(&chunks_, __ATOMIC_RELAXED); }
	// Bytes the ring holds now: the slots, the chunk table and the chunks held (not the
	// allocator's rounding, nor the skbs in flight, which the stack charged). Any context.
	u64 bytes() const
	{
		return u64(slots_.size()) * sizeof(RcTxSlot) + u64(rows_.size()) * sizeof(kstd::Unique<RcTxRows>) +
		       u64(gather_chunks()) * sizeof(RcTxRows);
	}
	// Producer context (the netif tx lock held, so no post() runs; the housekeeping work):
	// when no send is outstanding (the consumer touches no row then) and the last
	// fragmented send was posted at least kTxGatherIdleMs before now_ms, every gather chunk
	// is freed (counted in gather_freed); the next fragmented send allocates its chunk
	// again. Returns the chunks freed. A send that did not get its chunk back is linearized
	// (counted), never dropped for want of one.
	u32 trim(u64 now_ms);

private:
	bool map(RcTxSlot &slot, u32 idx, kapi_sge *sg);
	void unmap(const RcTxSlot &s, u32 idx);
	u64 *row(u32 idx) { return rows_[idx / kTxRowsPerChunk]->dma[idx % kTxRowsPerChunk]; }
	bool have_row(u32 idx);	// the slot's gather row, allocated on first use

	kapi_ib_device *ib_;
	RcSendCounters c_;
	kapi_qp *qp_ = nullptr;
	u32 lkey_ = 0;
	u32 head_ = 0;	// producer
	u32 tail_ = 0;	// consumer
	// cm::SendClock's last_progress_ms: the last completion that was progress
	// (cm::send_progressed), or the post that took the outstanding count from 0 to 1 (an idle
	// minute must not look like a stall).
	u64 progress_ms_ = 0;
	u32 done_ = 0;		// consumer: completions since progress_ms_ (0 whenever the ring empties)
	// consumer: head_ as the last completion read it and its batch's credit
	// (cm::ReserveAck::word, reserve_eligible), and the lateness bar (cm::reserve_bar_after)
	u64 ack_ = 0;
	u64 bar_until_ = 0;
	bool delivered_ = false;	// consumer writes (delivered())
	u32 sge_ = 1;
	u32 chunks_ = 0;	// producer (gather_chunks(): any context)
	u64 gather_ms_ = 0;	// producer: when a fragmented send last used a row (trim())
	u64 refused_ = 0;	// consumer
	bool warned_ = false;	// consumer: refused completions warn once per ring
	Array<RcTxSlot> slots_;
	Array<kstd::Unique<RcTxRows>> rows_;	// one per kTxRowsPerChunk slots, allocated on first use
};

} // namespace ipoib
