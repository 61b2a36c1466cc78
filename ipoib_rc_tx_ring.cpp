// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_tx_ring.cpp - the RC send ring (ipoib_rc_tx_ring.h).
#include "ipoib_rc_tx_ring.h"

namespace ipoib {

RcPost RcTxRing::post(kapi_skb *skb, u64 now_ms)
{
	const u32 size = slots_.size();
	const u32 tail = __atomic_load_n(&tail_, __ATOMIC_ACQUIRE);
	if (head_ - tail >= size) {
		count_local(*c_.drop_ring_full);
		return RcPost::RingFull;
	}
	const u32 idx = head_ & (size - 1);
	RcTxSlot &slot = slots_[idx];
	const u32 len = kapi_skb_len(skb);
	if (kapi_dma_map(ib_, kapi_skb_data(skb), len, KAPI_DMA_TO_DEVICE, &slot.dma) != 0) {
		count_local(*c_.drop_dma);
		return RcPost::Dma;
	}
	slot.skb = skb;
	slot.len = len;
	if (head_ == tail)	// 0 -> 1 outstanding: the watchdog's clock starts now
		__atomic_store_n(&progress_ms_, now_ms, __ATOMIC_RELAXED);
	if (kapi_post_send_rc(qp_, lkey_, wrid(WrKind::RcSend, idx), slot.dma, len) != 0) {
		kapi_dma_unmap(ib_, slot.dma, len, KAPI_DMA_TO_DEVICE);
		slot.skb = nullptr;
		count_local(*c_.drop_post);
		return RcPost::Post;
	}
	__atomic_store_n(&head_, head_ + 1, __ATOMIC_RELEASE);
	return RcPost::Posted;
}

bool RcTxRing::complete(const kapi_wc &wc, u64 now_ms)
{
	// In order on one QP: the completion is the tail's (its slot is in the wr_id too).
	RcTxSlot &s = slots_[tail_ & (slots_.size() - 1)];
	const bool ok = wc.status == KAPI_WC_SUCCESS;
	if (ok) {
		count_local(*c_.packets);
		count_local(*c_.bytes, s.len);
	} else {
		count_local(*c_.wc_errors);
	}
	kapi_dma_unmap(ib_, s.dma, s.len, KAPI_DMA_TO_DEVICE);
	if (ok)
		kapi_skb_consume(s.skb);
	else
		kapi_skb_free(s.skb);
	s.skb = nullptr;
	__atomic_store_n(&progress_ms_, now_ms, __ATOMIC_RELAXED);
	__atomic_store_n(&tail_, tail_ + 1, __ATOMIC_RELEASE);
	return ok || wc.status == KAPI_WC_WR_FLUSH_ERR;
}

u32 RcTxRing::drain()
{
	const u32 n = head_ - tail_;
	for (; tail_ != head_; tail_++) {
		RcTxSlot &s = slots_[tail_ & (slots_.size() - 1)];
		kapi_dma_unmap(ib_, s.dma, s.len, KAPI_DMA_TO_DEVICE);
		kapi_skb_free(kstd::exchange(s.skb, static_cast<kapi_skb *>(nullptr)));
	}
	return n;
}

} // namespace ipoib
