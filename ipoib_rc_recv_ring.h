// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_recv_ring.h - connected mode's receive buffers (docs/connected.md §5): one type
// serving the interface's SRQ and each non-SRQ RC QP's own receive queue. A buffer is a
// linear head (kFragHeadSize, whose skb fits one page: ipoib_frag.h) plus order-0 pages,
// posted as one multi-SGE receive (17 SGEs), so no high-order allocation is needed for the
// 65524-byte Receive MTU (RFC 4755 §4: at most 2^16 - 4 octets incl. the 4-octet IPoIB
// header; what Linux advertises, kMaxRecvMtu). A device with 16 SGEs gets 65152 bytes
// (receive_mtu). The slot bookkeeping is a separate small object (RcSlotRef).
//
// Never zero (issue 11 item 4): complete() hands a filled buffer up only once a fresh one
// took its slot; when none can be had, the packet is dropped (counted) and the same buffer
// queued again, so allocation failure never lowers posted() after repost(). An error or
// flush completion: on the SRQ the buffer is reposted (the SRQ outlives any one QP); on a
// non-SRQ ring the QP is in ERROR (IBA 10.3.1: any receive error moves an RC QP there), so
// nothing more is posted, and empty() turns true when the last posted receive completed:
// the teardown fence's RxEmpty (§4). The owner calls stop() when it moves the QP to ERROR
// (QpToErr) or tears the SRQ down: no post after it, and only a stopped ring can be empty(),
// so "nothing posted because the provider refused a post" on a live QP (needs_retry()) is
// never mistaken for the fence.
//
// Each slot knows whether its buffer is posted: a completion for a slot that is not (a
// duplicate CQE, a stale wr_id) is refused, counted in refused() and warned once, never
// handed up nor queued twice. So is a success whose byte_len exceeds buf_size (the HCA wrote
// past the SGEs we posted: IBA 11.4.2.1 would make that a local length error).
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
	bool posted = false;	// the HCA holds it: its one completion is still to come
};

// A slot of the ring: its buffer's bookkeeping (~260 bytes) is allocated when the slot is
// first used (post_initial, grow_if_low), so a ring of recv_queue_size slots costs 8 bytes per
// slot until then: an idle non-SRQ connection pins only its active buffers, and no ring needs
// a high-order kmalloc for its slot table (8192 slots x 260 bytes would be 2 MiB).
struct RcSlotRef {
	RcRxSlot *p = nullptr;
};

// Copybreak: a packet of at most this many bytes is copied into a small skb and the same
// buffer reposted (no replacement allocation, and the stack is charged a small truesize
// instead of the 4 KiB head). 256 as the in-tree IPOIB_CM_COPYBREAK idea: ARP, TCP ACKs.
inline constexpr u32 kRcCopybreak = 256;

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

	// NAPI: one receive completion of this ring (wr_id = wrid(RcRecv, slot)). Success of at
	// most kRcCopybreak bytes: a small skb with a copy, the same buffer queued (copied());
	// otherwise (or when no small skb can be had) the filled skb (head + page frags, len =
	// byte_len) after a fresh buffer took the slot;
	// nullptr when none could be had (drop counted, the same buffer queued). Errors and
	// flushes: nullptr; SRQ: queued again; non-SRQ: not reposted, the ring stops posting.
	kapi_skb *complete(const kapi_wc &wc);
	// NAPI, after a batch: posts what complete() queued, in chains of kRcPostBatch; what the
	// provider refuses stays queued, in order (counted). Nothing once stopped (stop(), or an
	// error completion on a non-SRQ ring).
	void repost();
	// Retry duty: a refused post leaves its buffers queued. While some receive is still
	// posted its completion brings NAPI back and the next repost() retries; when none is
	// (needs_retry()), no completion will come, so the owner must: after each NAPI pass it
	// checks needs_retry() and, when true, schedules another pass later (its timer or work
	// item re-schedules NAPI, which calls repost()). Never true once stopped.
	bool needs_retry() const { return !stopped_ && posted_ == 0 && queue_.size(); }
	// NAPI, after a batch and before repost() (non-SRQ only): when at least 3/4 of the
	// active buffers completed since the last call (the sender nearly ran the queue dry
	// between two polls: the count ignores reposts made in between, which the HCA may not
	// have seen yet), doubles the active buffers, up to size() and at most kPollBatch per
	// call (GFP_ATOMIC, in NAPI). A failure stops the growth there (counted) and changes
	// nothing else. With a NAPI budget B, one window sees at most about B completions, so
	// a ring grows past 4B/3 only when polls drain more than B between two calls.
	void grow_if_low();
	// The owner's QpToErr (non-SRQ) or SRQ teardown: no post from now on (queued buffers
	// stay the ring's until release()); empty() reports when the last posted one completed.
	// When nothing was posted at stop() (refused posts), empty() is true at once and no
	// completion will say so: the owner checks empty() right after stop() as well as after
	// each receive completion. Any context that excludes NAPI's use of the ring (or NAPI).
	void stop() { stopped_ = true; }
	// Teardown, after the QP/SRQ is destroyed (or every posted buffer's completion polled).
	void release();

	u32 posted() const { return __atomic_load_n(&posted_, __ATOMIC_RELAXED); }
	// The fence's RxEmpty: stopped and every posted receive completed.
	bool empty() const { return stopped_ && posted() == 0; }
	bool stopped() const { return stopped_; }
	// Completions refused (slot not posted, byte_len over buf_size); the owner may export it.
	u64 refused() const { return __atomic_load_n(&refused_, __ATOMIC_RELAXED); }
	// Packets handed up as copies (copybreak); the owner may export it.
	u64 copied() const { return __atomic_load_n(&copied_, __ATOMIC_RELAXED); }
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
	void refuse();
	kapi_skb *copy_small(RcRxSlot &s, u32 len);
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
	u32 consumed_ = 0;	// completions since the last grow_if_low()
	u32 active_ = 0;	// slots [0, active_) hold a buffer
	u64 refused_ = 0;
	u64 copied_ = 0;
	bool warned_ = false;	// refuse() warns once per ring
	bool stopped_ = false;	// stop(), or a non-SRQ error completion
	Array<RcSlotRef> slots_;
	SlotFifo queue_;
};

} // namespace ipoib
