// SPDX-License-Identifier: GPL-2.0
// ipoib_recv_ring.cpp - receive buffers, replacement first (ipoib_recv_ring.h).
#include "ipoib_recv_ring.h"

namespace ipoib {

Status RecvRing::alloc_buf(RxSlot &slot)
{
	SkbHandle skb(kapi_skb_alloc(nd_, buf_size_, 0, unsigned(Gfp::Atomic)));
	if (!skb)
		return Status::NoMem;
	if (slot.map.map(ib_, kapi_skb_data(skb.get()), buf_size_, KAPI_DMA_FROM_DEVICE) != 0)
		return Status::NoMem;	// skb freed by its handle
	slot.skb = kstd::move(skb);
	return Status::Ok;
}

Status RecvRing::fill(u32 buf_size)
{
	want_fill(buf_size);	// the first size asked for stays the ring's
	if (filled())
		return Status::Ok;
	// Resumable: a slot that holds a buffer is posted or queued already (a first fill that
	// failed part-way, then a retry); only the empty ones get one.
	Status st = Status::Ok;
	for (u32 i = 0; i < slots_.size(); i++) {
		if (slots_[i].skb)
			continue;
		if (!kstd::ok(alloc_buf(slots_[i]))) {
			count_local(*c_.nomem);
			st = Status::NoMem;
			break;
		}
		queue(i);
	}
	repost();
	if (kstd::ok(st))
		__atomic_store_n(&filled_, true, __ATOMIC_RELEASE);
	return st;
}

void RecvRing::want_fill(u32 buf_size)
{
	u32 none = 0;
	__atomic_compare_exchange_n(&buf_size_, &none, buf_size, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void RecvRing::queue(u32 idx)
{
	if (KSTD_WARN_ON(!queue_.push(idx)))
		return;	// cannot happen: a slot is queued at most once
	if (queue_.size() >= kPollBatch)
		repost();
}

kapi_skb *RecvRing::complete(const kapi_wc &wc)
{
	const u32 idx = wrid_slot(wc.wr_id) & (slots_.size() - 1);
	RxSlot &slot = slots_[idx];
	posted_--;
	if (wc.status != KAPI_WC_SUCCESS) {
		if (wc.status == KAPI_WC_WR_FLUSH_ERR) {
			// Queue going down: the buffer stays owned by the slot, freed in release().
			count_local(*c_.flushed);
			return nullptr;
		}
		count_local(*c_.wc_errors);
		queue(idx);
		return nullptr;
	}
	RxSlot fresh;
	if (!kstd::ok(alloc_buf(fresh))) {
		count_local(*c_.nomem);
		queue(idx);
		return nullptr;
	}
	slot.map.reset();	// the CPU owns the filled buffer from here on
	kapi_skb *skb = slot.skb.release();	// to the caller, then the stack
	slot = kstd::move(fresh);
	queue(idx);
	return skb;
}

void RecvRing::repost()
{
	while (queue_.size()) {
		kapi_recv r[kPollBatch];
		const u32 n = queue_.size() < kPollBatch ? queue_.size() : kPollBatch;
		for (u32 i = 0; i < n; i++) {
			const u32 idx = queue_.at(i);
			r[i] = {wrid(WrKind::UdRecv, idx), slots_[idx].map.addr(), buf_size_};
		}
		const int rc = target_.post(lkey_, r, int(n));
		const u32 took = rc > 0 ? u32(rc) : 0;
		posted_ += took;
		queue_.pop(took);
		if (took < n) {
			count_local(*c_.post_errors);	// the rest stays queued for the next repost
			return;
		}
	}
}

void RecvRing::release()
{
	for (u32 i = 0; i < slots_.size(); i++)
		slots_[i].reset();
	posted_ = 0;
	queue_.clear();
}

} // namespace ipoib
