// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_recv_ring.cpp - connected mode's multi-SGE receive ring (ipoib_rc_recv_ring.h).
#include "ipoib_rc_recv_ring.h"

namespace ipoib {

u32 RcRecvRing::sges_for(u32 buf_size)
{
	if (buf_size <= kFragHeadSize)
		return 1;
	return 1 + (buf_size - kFragHeadSize + KAPI_PAGE_SIZE - 1) / KAPI_PAGE_SIZE;
}

u32 RcRecvRing::receive_mtu(u32 buf_size, u32 max_sge)
{
	if (!max_sge || !buf_size)
		return 0;
	u32 n = sges_for(buf_size);
	if (n > max_sge)
		n = max_sge;
	if (n > 1 + kFragPages)
		n = 1 + kFragPages;
	const u32 holds = kFragHeadSize + (n - 1) * KAPI_PAGE_SIZE;
	return buf_size < holds ? buf_size : holds;
}

Status RcRecvRing::alloc(u32 max_entries, u32 buf_size)
{
	if (!buf_size || !max_entries || sges_for(buf_size) > 1 + kFragPages)
		return Status::Invalid;
	buf_size_ = buf_size;
	head_len_ = buf_size < kFragHeadSize ? buf_size : kFragHeadSize;
	npages_ = sges_for(buf_size) - 1;
	last_len_ = npages_ ? buf_size - head_len_ - (npages_ - 1) * KAPI_PAGE_SIZE : 0;
	KSTD_TRY(slots_.alloc(max_entries));
	return queue_.alloc(max_entries);
}

Status RcRecvRing::activate(u32 idx, Gfp gfp)
{
	RcRxSlot *p = new (gfp) RcRxSlot;
	if (!p)
		return Status::NoMem;
	if (!kstd::ok(alloc_buf(*p, npages_, gfp))) {
		delete p;
		return Status::NoMem;
	}
	slots_[idx].p = p;
	return Status::Ok;
}

// A head skb and npages pages, each mapped; on failure nothing is left allocated in s.
// No extra headroom: the skb allocator's own (NET_SKB_PAD, at least 32) covers the 20-byte
// pseudo header the receive path pushes after pulling the 4-octet IPoIB header.
Status RcRecvRing::alloc_buf(RcRxSlot &s, u32 npages, Gfp gfp)
{
	if (!s.skb) {
		kapi_skb *skb = kapi_skb_alloc(nd_, head_len_, 0, unsigned(gfp));
		if (!skb)
			return Status::NoMem;
		if (kapi_dma_map(ib_, kapi_skb_data(skb), head_len_, KAPI_DMA_FROM_DEVICE, &s.head_dma) != 0) {
			kapi_skb_free(skb);
			return Status::NoMem;
		}
		s.skb = skb;
	}
	for (u32 i = 0; i < npages; i++) {
		if (s.page[i])
			continue;
		kapi_page *pg = kapi_page_alloc(unsigned(gfp));
		if (!pg) {
			free_buf(s, npages);
			return Status::NoMem;
		}
		if (kapi_dma_map_page(ib_, pg, KAPI_DMA_FROM_DEVICE, &s.page_dma[i]) != 0) {
			kapi_page_put(pg);
			free_buf(s, npages);
			return Status::NoMem;
		}
		s.page[i] = pg;
	}
	return Status::Ok;
}

void RcRecvRing::free_buf(RcRxSlot &s, u32 npages)
{
	if (s.skb) {
		kapi_dma_unmap(ib_, s.head_dma, head_len_, KAPI_DMA_FROM_DEVICE);
		kapi_skb_free(kstd::exchange(s.skb, static_cast<kapi_skb *>(nullptr)));
	}
	for (u32 i = 0; i < npages; i++) {
		if (!s.page[i])
			continue;
		kapi_dma_unmap_page(ib_, s.page_dma[i], KAPI_DMA_FROM_DEVICE);
		kapi_page_put(kstd::exchange(s.page[i], static_cast<kapi_page *>(nullptr)));
	}
}

void RcRecvRing::queue(u32 idx)
{
	if (KSTD_WARN_ON(!queue_.push(idx)))
		return;	// cannot happen: a slot is queued at most once
	if (queue_.size() >= kPollBatch)
		repost();
}

// A completion this ring cannot take: counted, warned once (it means a provider or driver
// bug, and a CQE storm must not become a log storm), never handed up.
void RcRecvRing::refuse()
{
	count_local(refused_);
	if (!warned_) {
		warned_ = true;
		KSTD_WARN_ON(true);
	}
}

// Copybreak: len bytes of the head into a fresh small skb; the head stays mapped and goes
// back to the device. nullptr when no small skb could be had (the caller falls back).
kapi_skb *RcRecvRing::copy_small(RcRxSlot &s, u32 len)
{
	kapi_skb *skb = kapi_skb_alloc(nd_, len, 0, unsigned(Gfp::Atomic));
	if (!skb)
		return nullptr;
	kapi_dma_sync_for_cpu(ib_, s.head_dma, len, KAPI_DMA_FROM_DEVICE);
	__builtin_memcpy(kapi_skb_put(skb, len), kapi_skb_data(s.skb), len);
	kapi_dma_sync_for_device(ib_, s.head_dma, len, KAPI_DMA_FROM_DEVICE);
	count_local(copied_);
	return skb;
}

Status RcRecvRing::post_initial(u32 n)
{
	if (n > slots_.size() || n < active_ || stopped_)
		return Status::Invalid;
	for (; active_ < n; active_++) {
		if (!kstd::ok(activate(active_, Gfp::Kernel))) {
			count_local(*c_.nomem);
			return Status::NoMem;
		}
		queue(active_);
	}
	repost();
	consumed_ = 0;
	return posted_ == n && !queue_.size() ? Status::Ok : Status::Io;
}

kapi_skb *RcRecvRing::complete(const kapi_wc &wc)
{
	const u32 idx = wrid_slot(wc.wr_id);
	RcRxSlot *sp = idx < active_ ? slots_[idx].p : nullptr;
	if (!sp || !sp->posted || !posted_) {
		refuse();	// not a receive this ring has posted: a duplicate or stale CQE
		return nullptr;
	}
	RcRxSlot &slot = *sp;
	slot.posted = false;
	set_posted(posted_ - 1);
	consumed_++;
	if (wc.status != KAPI_WC_SUCCESS) {
		count_local(wc.status == KAPI_WC_WR_FLUSH_ERR ? *c_.flushed : *c_.wc_errors);
		if (on_srq())
			queue(idx);	// the SRQ stays up: the buffer serves another QP
		else
			stopped_ = true;	// QP in ERROR: the buffer stays in its slot until release()
		return nullptr;
	}
	// More than the SGEs' sum (buf_size_) cannot be a correct receive: the HCA must have
	// failed it with a local length error (IBA 11.4.2.1). The buffer goes back.
	if (wc.byte_len > buf_size_) {
		refuse();
		queue(idx);
		return nullptr;
	}
	if (wc.byte_len <= kRcCopybreak) {
		if (kapi_skb *small = copy_small(slot, wc.byte_len)) {
			queue(idx);
			return small;
		}
	}
	const FragLayout l = frag_layout(wc.byte_len, head_len_, npages_);
	// Replacement first: a fresh head and fresh pages for those the packet used.
	RcRxSlot fresh;
	if (!kstd::ok(alloc_buf(fresh, l.pages, Gfp::Atomic))) {
		count_local(*c_.nomem);
		queue(idx);
		return nullptr;
	}
	kapi_skb *skb = slot.skb;
	kapi_dma_unmap(ib_, slot.head_dma, head_len_, KAPI_DMA_FROM_DEVICE);
	for (u32 i = 0; i < l.pages; i++)
		kapi_dma_unmap_page(ib_, slot.page_dma[i], KAPI_DMA_FROM_DEVICE);
	frag_attach(skb, l, slot.page);	// the skb takes over the used pages
	slot.skb = fresh.skb;
	slot.head_dma = fresh.head_dma;
	for (u32 i = 0; i < l.pages; i++) {
		slot.page[i] = fresh.page[i];
		slot.page_dma[i] = fresh.page_dma[i];
	}
	queue(idx);
	return skb;
}

void RcRecvRing::repost()
{
	while (queue_.size() && !stopped_) {
		kapi_recv_sg r[kRcPostBatch];
		const u32 n = queue_.size() < kRcPostBatch ? queue_.size() : kRcPostBatch;
		for (u32 i = 0; i < n; i++) {
			const u32 idx = queue_.at(i);
			const RcRxSlot &s = *slots_[idx].p;
			r[i].wr_id = wrid(WrKind::RcRecv, idx);
			r[i].nsge = 1 + npages_;
			r[i].addr[0] = s.head_dma;
			r[i].len[0] = head_len_;
			for (u32 j = 0; j < npages_; j++) {
				r[i].addr[1 + j] = s.page_dma[j];
				r[i].len[1 + j] = page_len(j);
			}
		}
		const int rc = target_.post(lkey_, r, int(n));
		const u32 took = rc > 0 ? u32(rc) : 0;
		for (u32 i = 0; i < took; i++)
			slots_[queue_.at(i)].p->posted = true;
		set_posted(posted_ + took);
		queue_.pop(took);
		if (took < n) {
			count_local(*c_.post_errors);	// the rest stays queued for the next repost
			return;
		}
	}
}

void RcRecvRing::grow_if_low()
{
	const u32 consumed = kstd::exchange(consumed_, 0u);
	if (!on_srq() && !stopped_ && active_ < slots_.size() && consumed * 4 >= active_ * 3) {
		u32 want = active_ * 2 < slots_.size() ? active_ * 2 : slots_.size();
		if (want > active_ + kPollBatch)
			want = active_ + kPollBatch;	// bounded work per NAPI pass
		while (active_ < want) {
			if (!kstd::ok(activate(active_, Gfp::Atomic))) {
				count_local(*c_.grow_failed);
				break;
			}
			queue(active_++);
			count_local(*c_.grown);
		}
	}
}

void RcRecvRing::release()
{
	for (u32 i = 0; i < active_; i++) {
		if (RcRxSlot *p = kstd::exchange(slots_[i].p, static_cast<RcRxSlot *>(nullptr))) {
			free_buf(*p, npages_);
			delete p;
		}
	}
	set_posted(0);
	consumed_ = 0;
	active_ = 0;
	stopped_ = false;
	queue_.clear();
}

} // namespace ipoib
