// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_recv_ring.h - connected mode's receive buffers (docs/connected.md §5): one type
// serving the interface's SRQ and each non-SRQ RC QP's own receive queue. A buffer is a
// linear head (kFragHeadSize) plus order-0 pages, posted as one multi-SGE receive, so no
// high-order allocation is needed for the 65524-byte Receive MTU (RFC 4755 §4: at most
// 2^16 - 4 octets incl. the 4-octet IPoIB header; what Linux advertises, kMaxRecvMtu).
//
// Never zero (issue 11 item 4): complete() hands a filled buffer up only once a fresh one
// took its slot; when none can be had, the packet is dropped (counted) and the same buffer
// queued again, so allocation failure never lowers posted() after repost(). An error or
// flush completion: on the SRQ the buffer is reposted (the SRQ outlives any one QP); on a
// non-SRQ ring the QP is in ERROR (IBA 10.3.1: any receive error moves an RC QP there), so
// nothing more is posted, and empty() turns true when the last posted receive completed:
// the teardown fence's RxEmpty (§4).
//
// Owner: the SRQ's owner (interface, connected mode) or one Connection (non-SRQ). Holds: per
// active slot its RcRxSlot, a head skb and up to kFragPages pages, each DMA-mapped. Who may still reference a
// slot: the HCA, for every posted buffer, until its completion is polled or the QP/SRQ is
// destroyed; release() runs after that. Single consumer: NAPI (complete, repost,
// grow_if_low); post_initial() runs in process context before NAPI can see the ring.
// posted() may be read from any context (debugfs rx_posted).
#pragma once

#include "ipoib_frag.h"
#include "ipoib_recv_ring.h"

namespace ipoib {

// The counters the ring updates (single writer: NAPI; post_initial's before NAPI runs).
struct RcRecvCounters {
	u64 *nomem;		// no replacement buffer: packet dropped, the same buffer reposted
	u64 *wc_errors;		// error completion other than a flush
	u64 *flushed;		// flush completion
	u64 *post_errors;	// the provider refused a post (the rest stays queued)
	u64 *grown;		// non-SRQ: buffers added by grow_if_low
	u64 *grow_failed;	// non-SRQ: growth stopped for want of memory (harmless)
};

struct RcRxSlot {
	kapi_skb *skb = nullptr;	// the head: its linear area is SGE 0
	u64 head_dma = 0;
	kapi_page *page[kFragPages] = {};
	u64 page_dma[kFragPages] = {};
};

// A slot of the ring: its buffer's bookkeeping (~260 bytes) is allocated when the slot is
// first used (post_initial, grow_if_low), so a ring of recv_queue_size slots costs 8 bytes per
// slot until then: an idle non-SRQ connection pins only its active buffers, and no ring needs
// a high-order kmalloc for its slot table (8192 slots x 260 bytes would be 2 MiB).
struct RcSlotRef {
	RcRxSlot *p = nullptr;
};

// Receives posted per call (the shim converts them on its stack).
inline constexpr u32 kRcPostBatch = KAPI_RECV_SG_BATCH_MAX;
static_assert(1 + kFragPages <= KAPI_RECV_SGE_MAX, "a head and every page must fit one receive WR");

class RcRecvRing : kstd::NonCopyable {
public:
	RcRecvRing(kapi_ib_device *ib, const RcRecvCounters &c) : ib_(ib), c_(c) {}
	~RcRecvRing() { release(); }

	// SGEs a buffer of buf_size bytes takes: the head, then one per page.
	static u32 sges_for(u32 buf_size);
	// The Receive MTU (RFC 4755 §6 private data, IPoIB header included) that buffers of at
	// most max_sge SGEs really hold, for a wanted buf_size (design.md §4 item 5: advertise
	// what the buffers hold, never more). 0 when max_sge is 0.
	static u32 receive_mtu(u32 buf_size, u32 max_sge);

	// Process context. max_entries slots (the SRQ's max_wr, or the QP's max_recv_wr) of
	// buf_size-byte buffers; buf_size is a receive_mtu() result (Invalid if it needs more
	// SGEs than a WR has, or is 0).
	Status alloc(u32 max_entries, u32 buf_size);
	void bind(kapi_netdev *nd, RecvTarget target, u32 lkey)
	{
		nd_ = nd;
		target_ = target;
		lkey_ = lkey;
	}
	// Process context (GFP_KERNEL): posts buffers until n (<= size()) are active: the
	// non-SRQ QP in INIT before its REQ/REP (n = nonsrq_min_recv), the SRQ at bring-up
	// (n = its size). Ok only when all n are posted; otherwise the caller tears down.
	Status post_initial(u32 n);

	// NAPI: one receive completion of this ring (wr_id = wrid(RcRecv, slot)). Success: the
	// filled skb (head + page frags, len = byte_len) after a fresh buffer took the slot;
	// nullptr when none could be had (drop counted, the same buffer queued). Errors and
	// flushes: nullptr; SRQ: queued again; non-SRQ: not reposted, the ring stops posting.
	kapi_skb *complete(const kapi_wc &wc);
	// NAPI, after a batch: posts what complete() queued, in chains of kRcPostBatch; what the
	// provider refuses stays queued, in order (counted). Nothing once a non-SRQ ring saw an
	// error.
	void repost();
	// NAPI, after a batch and before repost() (non-SRQ only): when the fewest receives
	// posted since the last call fell below a quarter of the active buffers (the sender
	// nearly ran the queue dry between two polls), doubles the active buffers, up to size().
	// GFP_ATOMIC; a failure stops the growth there (counted) and changes nothing else.
	void grow_if_low();
	// Teardown, after the QP/SRQ is destroyed (or every posted buffer's completion polled).
	void release();

	u32 posted() const { return __atomic_load_n(&posted_, __ATOMIC_RELAXED); }
	bool empty() const { return posted() == 0; }
	u32 active() const { return active_; }	// slots holding a buffer
	u32 size() const { return slots_.size(); }
	u32 queued() const { return queue_.size(); }
	u32 buf_size() const { return buf_size_; }
	u32 nsge() const { return 1 + npages_; }
	bool on_srq() const { return target_.srq != nullptr; }

private:
	Status activate(u32 idx, Gfp gfp);	// slot idx gets its bookkeeping and a buffer
	Status alloc_buf(RcRxSlot &s, u32 npages, Gfp gfp);
	void free_buf(RcRxSlot &s, u32 npages);
	void queue(u32 idx);
	void set_posted(u32 n) { __atomic_store_n(&posted_, n, __ATOMIC_RELAXED); }
	u32 page_len(u32 i) const { return i + 1 < npages_ ? u32(KAPI_PAGE_SIZE) : last_len_; }

	kapi_ib_device *ib_;
	RcRecvCounters c_;
	kapi_netdev *nd_ = nullptr;
	RecvTarget target_;
	u32 lkey_ = 0;
	u32 buf_size_ = 0;
	u32 head_len_ = 0;	// SGE 0
	u32 npages_ = 0;	// SGEs 1..npages_
	u32 last_len_ = 0;	// the last page's SGE length
	u32 posted_ = 0;
	u32 low_ = 0;		// fewest posted since the last grow_if_low()
	u32 active_ = 0;	// slots [0, active_) hold a buffer
	bool stopped_ = false;	// non-SRQ: an error completion was seen
	Array<RcSlotRef> slots_;
	SlotFifo queue_;
};

} // namespace ipoib
