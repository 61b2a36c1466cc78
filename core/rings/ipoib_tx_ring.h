// SPDX-License-Identifier: GPL-2.0
// ipoib_tx_ring.h - the send ring of a UD QP: one slot per posted send (skb, DMA mapping,
// the AH reference that keeps the address handle alive until the send completed), the
// producer/consumer indices, and the netdev queue stop/wake around a full ring.
//
// Owner: Interface (a member). Holds: per posted send one skb and one DMA mapping (handles in
// its TxSlot); the AH
// is kept alive by the last-send rule instead of a reference per send (ipoib_ah.h).
// Who may still reference a slot: the HCA, from post() until its completion is polled
// (sends complete in order on one QP, IBA 10.8.3); drain() runs after the QP is in ERROR
// and destroyed. Producer: xmit under the netif tx lock; consumer: NAPI (complete()) or,
// with NAPI disabled, stop()/teardown. stop() waits for NAPI to see the ring empty
// (wait_empty: signalled from completed(), no polling).
#pragma once

#include "core/ipoib_handles.h"
#include "core/ipoib_log_limit.h"
#include "core/rings/ipoib_rings.h"
#include "core/rings/ipoib_tx_queue.h"
#include "kstd/inflight.h"
#include "kstd/log.h"
#include "kstd/refcount.h"

namespace ipoib {

class Ah;

// A posted send's skb and its mapping, owned by the slot until the send completed (or the
// ring is drained); a slot destroyed still holding them releases them (backstop).
struct TxSlot {
	SkbHandle skb;
	DmaMap dma;	// its len() is the send's length
};

// The counters a send ring updates: post-side ones by the producer, completion-side ones by
// the consumer (each single writer).
struct SendCounters {
	u64 *packets, *bytes, *wc_errors;		// consumer
	u64 *drop_ring_full, *drop_dma, *drop_post;	// producer
	u64 *queue_stopped;				// producer
};

enum class PostResult { Posted, RingFull, Dma, Post };

class TxRing : kstd::NonCopyable {
public:
	TxRing(kapi_ib_device *ib, const SendCounters &c, kstd::Logger &log) : ib_(ib), c_(c), log_(log) {}
	~TxRing() { KSTD_WARN_ON(head_ != tail_); }

	Status alloc(u32 entries) { return slots_.alloc(entries); }	// a power of two
	void bind(kapi_netdev *nd, kapi_qp *qp, u32 lkey)
	{
		nd_ = nd;
		qp_ = qp;
		lkey_ = lkey;
	}
	u32 size() const { return slots_.size(); }
	u32 outstanding() const { return __atomic_load_n(&head_, __ATOMIC_ACQUIRE) - __atomic_load_n(&tail_, __ATOMIC_ACQUIRE); }

	// Maps and posts skb's data (len bytes, linear) as one signalled UD send. On anything
	// but Posted the skb is the caller's again (and the failure counted). Stops the netdev
	// queue when the ring became full (TxQueueRule::stop over at: the interface's view, its
	// UD fields filled in here).
	PostResult post(kapi_skb *skb, u32 len, Ah &ah, u32 qpn, u32 qkey, const TxQueueView &at);
	// One send completion (in order; wr_id = wrid(UdSend, slot)): the skb is consumed or freed.
	void complete(const kapi_wc &wc);
	// After a batch of completions: publishes the tail, wakes a stopped queue when
	// TxQueueRule::wake allows (at: the interface's view, its UD fields filled in here), and
	// a wait_empty() sleeper once nothing is outstanding.
	void completed(u32 n, const TxQueueView &at);
	// at with this ring's UD fields (the transmit timeout's line, the rule's sites).
	TxQueueView view(TxQueueView at) const
	{
		at.ud_outstanding = outstanding();
		at.ud_size = size();
		return at;
	}
	// stop(), with no producer left and NAPI still enabled: sleeps until NAPI's completions
	// emptied the ring, at most timeout_ms. False on timeout.
	bool wait_empty(unsigned int timeout_ms)
	{
		return empty_.wait([this] { return outstanding() == 0; }, timeout_ms);
	}
	// Teardown, with the QP destroyed: every send still in the ring unmapped and freed.
	void drain();
	// Sends completed so far (free-running; an AH is idle once this passed its last send).
	u32 completed() const { return __atomic_load_n(&tail_, __ATOMIC_ACQUIRE); }
	// Sends posted so far (free-running; the reaper's upper bound of what is in flight).
	u32 posted() const { return __atomic_load_n(&head_, __ATOMIC_ACQUIRE); }
	// NAPI, after complete(): true once per send error other than a flush (IBA 10.3.1: it
	// moved the UD QP to SQE, UdQp::recover).
	bool take_qp_error() { return __atomic_exchange_n(&qp_error_, false, __ATOMIC_RELAXED); }

private:
	kapi_ib_device *ib_;
	SendCounters c_;
	kstd::Logger &log_;
	kapi_netdev *nd_ = nullptr;
	kapi_qp *qp_ = nullptr;
	u32 lkey_ = 0;
	u32 head_ = 0;	// producer
	u32 tail_ = 0;	// consumer
	Array<TxSlot> slots_;
	kstd::CondWait empty_;	// stop() waiting for outstanding() == 0
	LogLimit err_log_;	// send completion errors: one per packet at worst
	bool qp_error_ = false;	// a send failed (not flushed): the QP may be in SQE
};

} // namespace ipoib
