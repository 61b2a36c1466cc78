// SPDX-License-Identifier: GPL-2.0
// ipoib_rc_tx_ring.cpp - the RC send ring (ipoib_rc_tx_ring.h).
#include "core/rings/ipoib_rc_tx_ring.h"

namespace ipoib {

Status RcTxRing::alloc(u32 entries, u32 sge)
{
	sge_ = sge < 1 ? 1 : sge > KAPI_RC_SEND_SGE_MAX ? KAPI_RC_SEND_SGE_MAX : sge;
	__atomic_store_n(&chunks_, u32(0), __ATOMIC_RELAXED);
	KSTD_TRY(slots_.alloc(entries));
	return rows_.alloc((entries + kTxRowsPerChunk - 1) / kTxRowsPerChunk);
}

// Producer (xmit): the chunk holding slot idx's row, allocated the first time a fragmented
// skb lands in it and kept until the ring has been quiet (trim()); a busy connection gets
// its table back at the cost of one small allocation per chunk. False without memory.
bool RcTxRing::have_row(u32 idx)
{
	kstd::Unique<RcTxRows> &c = rows_[idx / kTxRowsPerChunk];
	if (c)
		return true;
	c = kstd::Unique<RcTxRows>(new (Gfp::Atomic) RcTxRows);
	if (!c)
		return false;
	__atomic_store_n(&chunks_, chunks_ + 1, __ATOMIC_RELAXED);
	if (c_.gather_alloc)
		count_local(*c_.gather_alloc);
	return true;
}

u32 RcTxRing::trim(u64 now_ms)
{
	if (!chunks_ || head_ != __atomic_load_n(&tail_, __ATOMIC_ACQUIRE) || kstd::ms_since(now_ms, gather_ms_) < kTxGatherIdleMs)
		return 0;
	u32 n = 0;
	for (u32 i = 0; i < rows_.size(); i++) {
		if (rows_[i]) {
			rows_[i].reset();
			n++;
		}
	}
	__atomic_store_n(&chunks_, u32(0), __ATOMIC_RELAXED);
	if (c_.gather_freed)
		count_local(*c_.gather_freed, n);
	return n;
}

// Maps slot.skb's head and fragments into the slot's mappings and sg; on a failure what was
// mapped is unmapped again. The caller made sure a fragmented skb's slot has its row.
bool RcTxRing::map(RcTxSlot &slot, u32 idx, kapi_sge *sg)
{
	kapi_skb *skb = slot.skb;
	slot.nsge = 0;
	slot.head_len = kapi_skb_headlen(skb);
	sg[0].len = slot.head_len;
	if (kapi_dma_map(ib_, kapi_skb_data(skb), sg[0].len, KAPI_DMA_TO_DEVICE, &slot.head_dma) != 0)
		return false;
	sg[0].addr = slot.head_dma;
	slot.nsge = 1;
	const u32 nfrags = kapi_skb_nr_frags(skb);
	u64 *dma = nfrags ? row(idx) : nullptr;
	for (u32 i = 0; i < nfrags; i++) {
		if (kapi_dma_map_frag(ib_, skb, i, &dma[i]) != 0) {
			unmap(slot, idx);
			return false;
		}
		sg[i + 1].addr = dma[i];
		sg[i + 1].len = kapi_skb_frag_len(skb, i);
		slot.nsge++;
	}
	return true;
}

// The head's mapping (its length kept in the slot), then the fragments' (lengths from the
// skb, unchanged while it is posted; a slot with fragments holds its skb).
void RcTxRing::unmap(const RcTxSlot &s, u32 idx)
{
	if (s.nsge == 0)
		return;
	kapi_dma_unmap(ib_, s.head_dma, s.head_len, KAPI_DMA_TO_DEVICE);
	if (s.nsge == 1)
		return;
	const u64 *dma = row(idx);
	for (u32 i = 1; i < s.nsge; i++)
		kapi_dma_unmap_frag(ib_, dma[i - 1], kapi_skb_frag_len(s.skb, i - 1));
}

// Octets 2-3 of hdr are already what encap_set_csum would write for how.
static bool encap_csum_as(const u8 *hdr, cm::TxCsum how)
{
	u8 want[kEncapLen] = {hdr[0], hdr[1], hdr[2], hdr[3]};
	cm::encap_set_csum(want, how);
	return want[2] == hdr[2] && want[3] == hdr[3];
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
	// The mark, or RFC 4391 §6's zero: written only when octets 2-3 differ, and into a head
	// of the skb's own (a clone's head, a tap's or tc mirred's, is shared and must not be
	// written). A failed copy is a drop, counted with the checksum's.
	if (!encap_csum_as(kapi_skb_data(skb), how)) {
		if (kapi_skb_cow_head(skb) != 0) {
			count_local(*c_.drop_csum);
			return RcPost::Csum;
		}
		cm::encap_set_csum(kapi_skb_data(skb), how);
	}
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
	// The head and each fragment are gathered by the HCA; only an skb with more
	// fragments than SGEs (or, without memory, for its slot's gather row) is copied into
	// one buffer.
	const u32 idx = head_ & (size - 1);
	const u32 nfrags = kapi_skb_nr_frags(skb);
	if (nfrags && (1 + nfrags > sge_ || !have_row(idx))) {
		if (kapi_skb_linearize(skb) != 0) {
			count_local(*c_.drop_linearize);
			return RcPost::Linearize;
		}
		count_local(*c_.linearized);
	}
	RcTxSlot &slot = slots_[idx];
	slot.skb = skb;
	slot.len = kapi_skb_len(skb);
	slot.post_ms = u32(now_ms);	// its head-of-line age (reserve_eligible)
	kapi_sge sg[KAPI_RC_SEND_SGE_MAX];
	if (!map(slot, idx, sg)) {
		slot.skb = nullptr;
		slot.nsge = 0;
		count_local(*c_.drop_dma);
		return RcPost::Dma;
	}
	if (head_ == tail)	// 0 -> 1 outstanding: the watchdog's clock starts now
		__atomic_store_n(&progress_ms_, now_ms, __ATOMIC_RELAXED);
	if (kapi_post_send_rc(qp_, lkey_, wrid(WrKind::RcSend, idx), sg, slot.nsge) != 0) {
		unmap(slot, idx);
		slot.skb = nullptr;
		slot.nsge = 0;
		count_local(*c_.drop_post);
		return RcPost::Post;
	}
	if (slot.nsge > 1) {
		count_local(*c_.gathered);
		gather_ms_ = now_ms;	// its chunk is in use: trim() waits kTxGatherIdleMs from here
	}
	__atomic_store_n(&head_, head_ + 1, __ATOMIC_RELEASE);
	return RcPost::Posted;
}

RcWc RcTxRing::complete(const kapi_wc &wc, u64 now_ms, u64 lag_ms)
{
	// In order on one QP: the completion is the tail's, and its wr_id names that slot. One
	// that names another slot, or whose slot holds no skb, is not a send of ours (a duplicate
	// CQE or a stale wr_id: nothing to free or unmap). Not head_: the HCA may
	// complete a send before xmit has advanced head_ past it (the skb is in the slot before
	// the post, so its completion is never refused; ipoib-cm-storm-nosrq hit that race
	// when this test read head_).
	const u32 idx = tail_ & (slots_.size() - 1);
	RcTxSlot &s = slots_[idx];
	if (!s.skb || wrid_slot(wc.wr_id) != idx) {
		count_local(refused_);
		if (c_.refused)
			count_local(*c_.refused);
		if (!warned_) {
			warned_ = true;
			KSTD_WARN_ON(true);
		}
		return RcWc::Refused;
	}
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
	s.nsge = 0;
	// cm::SendClock's rule: only a quota of completions, or an empty ring, is progress, and
	// only a successful one of those is delivery (cm::send_delivered)
	done_++;
	const u32 head = __atomic_load_n(&head_, __ATOMIC_ACQUIRE);
	const bool progressed = cm::send_progressed(done_, cm::send_outstanding_after(head, tail_));
	// the reserve's credit (this completion's batch, the head it saw) and its lateness bar
	// (reserve_eligible); published with tail_ below, before the caller's rc_sent fence
	// (reserve_held pairs with it)
	__atomic_store_n(&ack_, cm::reserve_acked(cm::ReserveAck::of(ack_), head, tail_).word(), __ATOMIC_RELAXED);
	reserve_bar_at_least(cm::reserve_bar_after(0, now_ms, s.post_ms, lag_ms));
	if (progressed) {
		__atomic_store_n(&progress_ms_, now_ms, __ATOMIC_RELAXED);
		done_ = 0;
	}
	if (cm::send_delivered(ok, progressed) && !delivered_)
		__atomic_store_n(&delivered_, true, __ATOMIC_RELAXED);
	__atomic_store_n(&tail_, tail_ + 1, __ATOMIC_RELEASE);
	return ok || wc.status == KAPI_WC_WR_FLUSH_ERR ? RcWc::Done : RcWc::Error;
}

u32 RcTxRing::drain(u64 now_ms)
{
	const u32 n = head_ - tail_;
	if (n)
		reserve_bar_at_least(cm::reserve_bar_end(0, now_ms, n, slots_[tail_ & (slots_.size() - 1)].post_ms));
	for (; tail_ != head_; tail_++) {
		const u32 idx = tail_ & (slots_.size() - 1);
		RcTxSlot &s = slots_[idx];
		unmap(s, idx);
		s.nsge = 0;
		kapi_skb_free(kstd::exchange(s.skb, static_cast<kapi_skb *>(nullptr)));
	}
	return n;
}

} // namespace ipoib
