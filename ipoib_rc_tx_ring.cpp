// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_tx_ring.cpp - the RC send ring (ipoib_rc_tx_ring.h).
#include "ipoib_rc_tx_ring.h"

namespace ipoib {

Status RcTxRing::alloc(u32 entries, u32 sge)
{
	sge_ = sge < 1 ? 1 : sge > KAPI_RC_SEND_SGE_MAX ? KAPI_RC_SEND_SGE_MAX : sge;
	KSTD_TRY(slots_.alloc(entries));
	if (sge_ > 1 && kstd::ok(dma_.alloc(entries * sge_)))
		return Status::Ok;
	// The gather table is entries x sge_ addresses (19.5 KiB at 128 x 19): without it the
	// ring still works, one SGE per send, linearizing (counted) what is fragmented.
	sge_ = 1;
	return dma_.alloc(entries);
}

// Maps slot.skb's head and fragments into the slot's mappings and sg; on a failure what was
// mapped is unmapped again.
bool RcTxRing::map(RcTxSlot &slot, u32 idx, kapi_sge *sg)
{
	kapi_skb *skb = slot.skb;
	u64 *dma = dma_of(idx);
	slot.nsge = 0;
	sg[0].len = kapi_skb_headlen(skb);
	if (kapi_dma_map(ib_, kapi_skb_data(skb), sg[0].len, KAPI_DMA_TO_DEVICE, &dma[0]) != 0)
		return false;
	sg[0].addr = dma[0];
	slot.nsge = 1;
	const u32 nfrags = kapi_skb_nr_frags(skb);
	for (u32 i = 0; i < nfrags; i++) {
		if (kapi_dma_map_frag(ib_, skb, i, &dma[i + 1]) != 0) {
			unmap(slot, idx);
			return false;
		}
		sg[i + 1].addr = dma[i + 1];
		sg[i + 1].len = kapi_skb_frag_len(skb, i);
		slot.nsge++;
	}
	return true;
}

// The head's mapping, then the fragments' (lengths from the skb, as posted).
void RcTxRing::unmap(const RcTxSlot &s, u32 idx)
{
	const u64 *dma = dma_of(idx);
	if (s.nsge == 0)
		return;
	kapi_dma_unmap(ib_, dma[0], kapi_skb_headlen(s.skb), KAPI_DMA_TO_DEVICE);
	for (u32 i = 1; i < s.nsge; i++)
		kapi_dma_unmap_frag(ib_, dma[i], kapi_skb_frag_len(s.skb, i - 1));
}

RcPost RcTxRing::post(kapi_skb *skb, u64 now_ms, bool csum_free)
{
	const u32 size = slots_.size();
	const u32 tail = __atomic_load_n(&tail_, __ATOMIC_ACQUIRE);
	if (head_ - tail >= size) {
		count_local(*c_.drop_ring_full);
		return RcPost::RingFull;
	}
	// The checksum before anything is mapped: skb_checksum_help may reallocate the data.
	u16 csum_off = 0;
	const bool partial = kapi_skb_csum_partial(skb, &csum_off) != 0;
	const cm::TxCsum how = cm::tx_csum(partial, partial ? kapi_skb_csum_start(skb) : 0, csum_off,
					   kapi_skb_data(skb), kapi_skb_headlen(skb), csum_free);
	cm::encap_set_csum(kapi_skb_data(skb), how);	// the mark, or RFC 4391 §6's zero
	switch (how) {
	case cm::TxCsum::AsIs:
		break;
	case cm::TxCsum::Mark:
		// The peer restores CHECKSUM_PARTIAL (kCapCsumFree); on the wire the RC transport's
		// ICRC and VCRC (IBA 7.8) protect the packet instead of the L4 checksum.
		count_local(*c_.csum_skipped);
		break;
	case cm::TxCsum::Fill:
		if (kapi_skb_checksum_help(skb) != 0) {
			count_local(*c_.drop_csum);
			return RcPost::Csum;
		}
		count_local(*c_.csum_filled);
		break;
	}
	// F4: the head and each fragment are gathered by the HCA; only an skb with more
	// fragments than SGEs is copied into one buffer.
	if (1 + kapi_skb_nr_frags(skb) > sge_) {
		if (kapi_skb_linearize(skb) != 0) {
			count_local(*c_.drop_linearize);
			return RcPost::Linearize;
		}
		count_local(*c_.linearized);
	}
	const u32 idx = head_ & (size - 1);
	RcTxSlot &slot = slots_[idx];
	slot.skb = skb;
	slot.len = kapi_skb_len(skb);
	kapi_sge sg[KAPI_RC_SEND_SGE_MAX];
	if (!map(slot, idx, sg)) {
		slot.skb = nullptr;
		count_local(*c_.drop_dma);
		return RcPost::Dma;
	}
	if (head_ == tail)	// 0 -> 1 outstanding: the watchdog's clock starts now
		__atomic_store_n(&progress_ms_, now_ms, __ATOMIC_RELAXED);
	if (kapi_post_send_rc(qp_, lkey_, wrid(WrKind::RcSend, idx), sg, slot.nsge) != 0) {
		unmap(slot, idx);
		slot.skb = nullptr;
		count_local(*c_.drop_post);
		return RcPost::Post;
	}
	if (slot.nsge > 1)
		count_local(*c_.gathered);
	__atomic_store_n(&head_, head_ + 1, __ATOMIC_RELEASE);
	return RcPost::Posted;
}

bool RcTxRing::complete(const kapi_wc &wc, u64 now_ms)
{
	// In order on one QP: the completion is the tail's (its slot is in the wr_id too).
	const u32 idx = tail_ & (slots_.size() - 1);
	RcTxSlot &s = slots_[idx];
	const bool ok = wc.status == KAPI_WC_SUCCESS;
	if (ok) {
		count_local(*c_.packets);
		count_local(*c_.bytes, s.len);
	} else {
		count_local(*c_.wc_errors);
	}
	unmap(s, idx);
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
		const u32 idx = tail_ & (slots_.size() - 1);
		RcTxSlot &s = slots_[idx];
		unmap(s, idx);
		kapi_skb_free(kstd::exchange(s.skb, static_cast<kapi_skb *>(nullptr)));
	}
	return n;
}

} // namespace ipoib
