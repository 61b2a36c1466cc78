// SPDX-License-Identifier: GPL-2.0
// ipoib_tx_ring.cpp - the UD send ring (ipoib_tx_ring.h).
#include "core/rings/ipoib_tx_ring.h"
#include "ipoib_if.h"
#include "core/rings/ipoib_wrid.h"

namespace ipoib {

PostResult TxRing::post(kapi_skb *skb, u32 len, Ah &ah, u32 qpn, u32 qkey, const TxQueueView &at)
{
	const u32 size = slots_.size();
	if (head_ - __atomic_load_n(&tail_, __ATOMIC_ACQUIRE) >= size) {
		count_local(*c_.drop_ring_full);
		return PostResult::RingFull;
	}
	TxSlot &slot = slots_[head_ & (size - 1)];
	if (slot.dma.map(ib_, kapi_skb_data(skb), len, KAPI_DMA_TO_DEVICE) != 0) {
		count_local(*c_.drop_dma);
		return PostResult::Dma;
	}
	kapi_ud_send wr{};
	wr.wr_id = wrid(WrKind::UdSend, head_ & (size - 1));
	wr.addr = slot.dma.addr();
	wr.len = len;
	wr.remote_qpn = qpn;
	wr.remote_qkey = qkey;
	wr.ah = ah.raw();
	wr.signaled = 1;	// every send: one slot is freed per completion (ipoib_ud_qp.h)
	slot.skb.reset(skb);
	ah.note_send(head_);	// before the post: a completion may follow at once
	if (kapi_post_send_ud(qp_, lkey_, &wr, 1) != 0) {
		slot.dma.reset();
		static_cast<void>(slot.skb.release());	// the caller's again
		count_local(*c_.drop_post);
		return PostResult::Post;
	}
	__atomic_store_n(&head_, head_ + 1, __ATOMIC_RELEASE);
	if (TxQueueRule::stop(view(at))) {
		count_local(*c_.queue_stopped);
		kapi_netdev_stop_queue(nd_);
		// Pairs with completed(): the completions that ran between the check and the stop
		// saw the queue running and did not wake it; by the same rule we wake it ourselves.
		// (Still above half: a completion still to come wakes it.)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (TxQueueRule::wake(view(at)))
			kapi_netdev_wake_queue(nd_);
	}
	return PostResult::Posted;
}

void TxRing::complete(const kapi_wc &wc)
{
	// Sends complete in order on one UD QP; the slot is the tail's.
	TxSlot &s = slots_[wrid_slot(wc.wr_id) & (slots_.size() - 1)];
	if (wc.status != KAPI_WC_SUCCESS) {
		count_local(*c_.wc_errors);
		u32 missed = 0;
		if (wc.status != KAPI_WC_WR_FLUSH_ERR)
			__atomic_store_n(&qp_error_, true, __ATOMIC_RELAXED);
		if (wc.status != KAPI_WC_WR_FLUSH_ERR && err_log_.allow(kapi_now_ms(), missed))
			log_.warn("send completion error %u (vendor 0x%x; %u more not logged, all counted in tx_wc_errors)",
				  wc.status, wc.vendor_err, missed);
	} else {
		count_local(*c_.packets);
		count_local(*c_.bytes, s.dma.len());
	}
	s.dma.reset();
	if (wc.status == KAPI_WC_SUCCESS)
		kapi_skb_consume(s.skb.release());	// sent: not a drop (consume_skb)
	else
		s.skb.reset();
}

void TxRing::completed(u32 n, const TxQueueView &at)
{
	if (!n)
		return;
	__atomic_store_n(&tail_, tail_ + n, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (kapi_netdev_queue_stopped(nd_) && TxQueueRule::wake(view(at)))
		kapi_netdev_wake_queue(nd_);
	// The fence above orders the tail store before this load of the waiter's flag.
	if (empty_.armed() && outstanding() == 0)
		empty_.signal();
}

void TxRing::drain()
{
	for (; tail_ != head_; tail_++) {
		TxSlot &s = slots_[tail_ & (slots_.size() - 1)];
		s.dma.reset();
		s.skb.reset();
	}
}

} // namespace ipoib
