// SPDX-License-Identifier: GPL-2.0
// ipoib_recv_ring.h - a ring of receive buffers posted to one receive queue: the UD QP's
// now, the SRQ's and each RC QP's in connected mode (RecvTarget says which). Replacement
// first: a filled buffer is handed up only once a fresh one has taken its slot; when none
// can be had the packet is dropped and the same buffer reposted, so allocation failure
// never shrinks what the HCA owns (posted() stays at size() while the queue is up; only a
// flush, teardown's, lowers it).
//
// Owner: Interface (a member). Holds: one skb and one DMA mapping per slot. Who may still
// reference a slot: the HCA, for every posted buffer, until the QP/SRQ is in ERROR and its
// flush completions are polled, or the QP destroyed; release() runs after that (the slots'
// destructors are the backstop).
// Single consumer: NAPI (fill, complete, repost). Other contexts only ask for the fill
// (want_fill, from the broadcast join) and schedule NAPI.
#pragma once

#include "ipoib_handles.h"
#include "ipoib_rings.h"
#include "ipoib_wrid.h"

namespace ipoib {

// One receive buffer and its mapping, both owned: destroying or resetting a slot unmaps the
// buffer (map is declared last, so it is destroyed first) and then frees it.
struct RxSlot {
	SkbHandle skb;
	DmaMap map;
	void reset()
	{
		map.reset();
		skb.reset();
	}
};

// The queue a ring posts to: a QP's own receive queue or an SRQ.
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

// The counters a ring updates (single writer: its NAPI context).
struct RecvCounters {
	u64 *nomem;		// no replacement buffer: packet dropped, buffer reposted
	u64 *wc_errors;		// completion with an error other than flush: buffer reposted
	u64 *flushed;		// flush completion: the buffer stays in its slot until release()
	u64 *post_errors;	// post_recv refused a batch
};

class RecvRing : kstd::NonCopyable {
public:
	RecvRing(kapi_ib_device *ib, const RecvCounters &c) : ib_(ib), c_(c) {}
	~RecvRing() { release(); }

	Status alloc(u32 entries)	// a power of two
	{
		KSTD_TRY(slots_.alloc(entries));
		return queue_.alloc(entries);
	}
	void bind(kapi_netdev *nd, RecvTarget target, u32 lkey)
	{
		nd_ = nd;
		target_ = target;
		lkey_ = lkey;
	}
	// Any context: the ring is to be filled with buffers of buf_size bytes (the first size
	// asked for is kept; buf_size() is valid from here on). NAPI does the fill.
	void want_fill(u32 buf_size);
	bool fill_wanted() const { return buf_size() != 0; }
	// NAPI (or before NAPI can see the ring): gives every empty slot a buffer and posts it.
	// Resumable: after a failure (no memory) the buffers already posted stay posted, and the
	// next call only fills the slots still empty. Ok once every slot holds a buffer.
	Status fill(u32 buf_size);
	bool filled() const { return __atomic_load_n(&filled_, __ATOMIC_ACQUIRE); }
	u32 size() const { return slots_.size(); }
	u32 buf_size() const { return __atomic_load_n(&buf_size_, __ATOMIC_ACQUIRE); }
	u32 posted() const { return posted_; }

	// One receive completion of this ring (wr_id = wrid(UdRecv, slot)). Returns the filled skb (its slot already holds
	// a fresh buffer, queued for repost) or nullptr: a flush, an error, or no replacement
	// (the same buffer queued for repost; counted).
	kapi_skb *complete(const kapi_wc &wc);
	// Posts what complete() (or fill()) queued, in chains of kPollBatch. What the provider
	// refuses (a partial post) stays queued, in order, for the next repost; counted.
	void repost();
	u32 queued() const { return queue_.size(); }
	// Teardown, after the queue is flushed or destroyed: every buffer unmapped and freed.
	void release();

private:
	Status alloc_buf(RxSlot &slot);
	void queue(u32 idx);

	kapi_ib_device *ib_;
	RecvCounters c_;
	kapi_netdev *nd_ = nullptr;
	RecvTarget target_;
	u32 lkey_ = 0;
	u32 buf_size_ = 0;
	u32 posted_ = 0;
	bool filled_ = false;
	Array<RxSlot> slots_;
	SlotFifo queue_;	// slots waiting to be posted (a slot held after a flush is in neither)
};

} // namespace ipoib
