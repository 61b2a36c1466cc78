// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_tx_ring.h - the send ring of one RC QP (connected mode, RFC 4755): one slot per
// posted send (skb + DMA mapping), free-running producer/consumer indices, and what the send
// watchdog reads (docs/connected.md §3: cm::send_stalled over the outstanding count and the
// time of the last progress, cm::SendClock's rule).
//
// Owner: one Connection. Holds: per posted send one skb and one DMA mapping. Who may still
// reference a slot: the HCA, from post() until its completion is polled (sends complete in
// order on one QP, IBA 10.8.3; the QP is created IB_SIGNAL_ALL_WR); drain() runs after the
// QP was destroyed. Producer: xmit under the netif tx lock (StartSending's queue flush takes
// that lock too); consumer: NAPI. The watchdog reads both indices from the CM work.
#pragma once

#include "ipoib_rings.h"
#include "ipoib_wrid.h"
#include "ipoib_cm_state.h"

namespace ipoib {

struct RcTxSlot {
	kapi_skb *skb = nullptr;
	u64 dma = 0;
	u32 len = 0;
};

// Counters the ring updates; the producer's and the consumer's are disjoint (single writer).
struct RcSendCounters {
	u64 *packets, *bytes, *wc_errors;	// consumer (NAPI)
	u64 *drop_ring_full, *drop_dma, *drop_post;	// producer (xmit)
};

enum class RcPost { Posted, RingFull, Dma, Post };

class RcTxRing : kstd::NonCopyable {
public:
	RcTxRing(kapi_ib_device *ib, const RcSendCounters &c) : ib_(ib), c_(c) {}
	~RcTxRing() { KSTD_WARN_ON(head_ != tail_); }

	Status alloc(u32 entries) { return slots_.alloc(entries); }	// a power of two; process context
	void bind(kapi_qp *qp, u32 lkey)
	{
		qp_ = qp;
		lkey_ = lkey;
	}
	u32 size() const { return slots_.size(); }
	u32 outstanding() const { return __atomic_load_n(&head_, __ATOMIC_ACQUIRE) - __atomic_load_n(&tail_, __ATOMIC_ACQUIRE); }

	// Maps and posts skb's linear data as one signalled SEND (wr_id = wrid(RcSend, slot)).
	// On anything but Posted the skb is the caller's again (the failure counted).
	RcPost post(kapi_skb *skb, u64 now_ms);
	// NAPI: one send completion (in order); the skb is consumed or freed. False for an
	// error other than a flush (the caller feeds the connection a WcError).
	bool complete(const kapi_wc &wc, u64 now_ms);
	// Teardown, with the QP destroyed: every send still in the ring unmapped and freed;
	// returns how many there were.
	u32 drain();
	// The send watchdog (docs/connected.md §3): sends outstanding and none completed for
	// cm::kSendWatchdogMs. Any context (a racy read is fine for a 10 s backstop).
	bool stalled(u64 now_ms) const
	{
		return cm::send_stalled(outstanding(), now_ms, __atomic_load_n(&progress_ms_, __ATOMIC_RELAXED));
	}

private:
	kapi_ib_device *ib_;
	RcSendCounters c_;
	kapi_qp *qp_ = nullptr;
	u32 lkey_ = 0;
	u32 head_ = 0;	// producer
	u32 tail_ = 0;	// consumer
	// cm::SendClock's last_progress_ms: the last completion, or the post that took the
	// outstanding count from 0 to 1 (an idle minute must not look like a stall).
	u64 progress_ms_ = 0;
	Array<RcTxSlot> slots_;
};

} // namespace ipoib
