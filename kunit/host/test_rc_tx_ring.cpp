// SPDX-License-Identifier: GPL-2.0
// test_rc_tx_ring.cpp (host only, over kunit/host/fake_verbs.c): connected mode's RC send
// ring (ipoib_rc_tx_ring.h): wr_id tags and in-order completion, the full ring, error vs
// flush completions, drain at teardown, and the send watchdog's clock (cm::SendClock's rule:
// the clock starts when the outstanding count goes 0 -> 1 and every completion is progress).
#include "fake_verbs.h"
#include "ipoib_rc_tx_ring.h"
#include "ktest.h"

using namespace ipoib;

namespace {

struct Ctrs {
	u64 packets = 0, bytes = 0, wc_errors = 0, ring_full = 0, dma = 0, post = 0;
	RcSendCounters refs() { return {&packets, &bytes, &wc_errors, &ring_full, &dma, &post}; }
};

struct TxOn {
	Ctrs c;
	kapi_cq *cq = fake_cq_new();
	kapi_qp *qp = nullptr;
	RcTxRing r{nullptr, c.refs()};
	explicit TxOn(u32 entries)
	{
		kapi_qp_init init{};
		qp = kapi_rc_qp_create(nullptr, cq, nullptr, &init);
		kstd::ignore(r.alloc(entries));
		r.bind(qp, 0);
	}
	~TxOn()
	{
		r.drain();
		kapi_qp_destroy(qp);
		fake_cq_free(cq);
	}
	kapi_skb *skb(u32 len)
	{
		kapi_skb *s = kapi_skb_alloc(nullptr, len, 0, KAPI_GFP_KERNEL);
		if (s)
			kapi_skb_put(s, len);
		return s;
	}
	kapi_wc wc(u32 slot, u32 status) const
	{
		kapi_wc w{};
		w.wr_id = wrid(WrKind::RcSend, slot);
		w.status = status;
		return w;
	}
};

} // namespace

KTEST(rc_tx_ring, posts_tagged_and_completes_in_order)
{
	const long skbs = fake_skbs_live(), dma = fake_dma_live();
	{
		TxOn t(8);
		for (u32 i = 0; i < 3; i++) {
			EXPECT_EQ(int(t.r.post(t.skb(100 + i), 0)), int(RcPost::Posted));
			EXPECT_EQ(fake_qp_rc(t.qp)->last_send_wr_id, wrid(WrKind::RcSend, i));
			EXPECT_EQ(fake_qp_rc(t.qp)->last_send_len, 100 + i);
		}
		EXPECT_EQ(t.r.outstanding(), 3u);
		for (u32 i = 0; i < 3; i++)
			EXPECT_TRUE(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), 1));
		EXPECT_EQ(t.r.outstanding(), 0u);
		EXPECT_EQ(t.c.packets, 3u);
		EXPECT_EQ(t.c.bytes, 303u);
		EXPECT_EQ(fake_skbs_live(), skbs);
		EXPECT_EQ(fake_dma_live(), dma);
	}
}

KTEST(rc_tx_ring, full_ring_refuses_and_counts)
{
	TxOn t(4);
	for (u32 i = 0; i < 4; i++)
		EXPECT_EQ(int(t.r.post(t.skb(64), 0)), int(RcPost::Posted));
	kapi_skb *extra = t.skb(64);
	EXPECT_EQ(int(t.r.post(extra, 0)), int(RcPost::RingFull));
	EXPECT_EQ(t.c.ring_full, 1u);
	EXPECT_TRUE(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 0));
	EXPECT_EQ(int(t.r.post(extra, 0)), int(RcPost::Posted));	// the freed slot
	EXPECT_EQ(fake_qp_rc(t.qp)->last_send_wr_id, wrid(WrKind::RcSend, 0));	// wraps to slot 0
}

KTEST(rc_tx_ring, errors_flushes_and_drain)
{
	const long skbs = fake_skbs_live();
	TxOn t(8);
	for (u32 i = 0; i < 4; i++)
		EXPECT_EQ(int(t.r.post(t.skb(64), 0)), int(RcPost::Posted));
	// A transport error is the connection's business (WcError); a flush is teardown's.
	EXPECT_FALSE(t.r.complete(t.wc(0, KAPI_WC_RNR_RETRY_EXC_ERR), 0));
	EXPECT_TRUE(t.r.complete(t.wc(1, KAPI_WC_WR_FLUSH_ERR), 0));
	EXPECT_EQ(t.c.wc_errors, 2u);
	EXPECT_EQ(t.c.packets, 0u);
	// ForceDestroy: what NAPI will never complete is freed and reported.
	EXPECT_EQ(t.r.drain(), 2u);
	EXPECT_EQ(t.r.outstanding(), 0u);
	EXPECT_EQ(t.r.drain(), 0u);
	EXPECT_EQ(fake_skbs_live(), skbs);
}

KTEST(rc_tx_ring, watchdog_clock)
{
	constexpr u64 W = cm::kSendWatchdogMs;
	TxOn t(8);
	EXPECT_FALSE(t.r.stalled(1000000));	// idle: nothing outstanding is never a stall
	EXPECT_EQ(int(t.r.post(t.skb(64), 50000)), int(RcPost::Posted));	// 0 -> 1: clock starts
	// cm::send_stalled: more than kSendWatchdogMs without progress
	EXPECT_FALSE(t.r.stalled(50000 + W));
	EXPECT_TRUE(t.r.stalled(50000 + W + 1));
	EXPECT_EQ(int(t.r.post(t.skb(64), 55000)), int(RcPost::Posted));	// 1 -> 2: no restart
	EXPECT_TRUE(t.r.stalled(50000 + W + 1));
	EXPECT_TRUE(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 58000));	// progress
	EXPECT_FALSE(t.r.stalled(58000 + W));
	EXPECT_TRUE(t.r.stalled(58000 + W + 1));
	EXPECT_TRUE(t.r.complete(t.wc(1, KAPI_WC_SUCCESS), 59000));
	EXPECT_FALSE(t.r.stalled(59000 + 10 * W));	// nothing outstanding again
}


KTEST_SUITE(rc_tx_ring, KTEST_CASE(rc_tx_ring, posts_tagged_and_completes_in_order),
	    KTEST_CASE(rc_tx_ring, full_ring_refuses_and_counts), KTEST_CASE(rc_tx_ring, errors_flushes_and_drain),
	    KTEST_CASE(rc_tx_ring, watchdog_clock));
