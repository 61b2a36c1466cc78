// SPDX-License-Identifier: GPL-2.0
// test_tx_ring.cpp (host only, over kunit/host/fake_tx.c and fake_verbs.c): the UD send ring -
// post and complete with their counters, the queue stopped when the ring fills and woken at
// half, refused posts and error completions, the teardown drain, and stop()'s wait for NAPI
// to empty the ring (signalled, not polled).
#include "fake_rcu.h"
#include "fake_tx.h"
#include "fake_verbs.h"
#include "core/ud/ipoib_ah.h"
#include "core/rings/ipoib_tx_ring.h"
#include "ktest.h"

using namespace ipoib;

namespace {

kstd::Logger g_txlog{"tx"};
// An Ah refers to its Interface, which these cases never touch (incomplete type here).
alignas(64) unsigned char g_no_if[64];
constexpr u32 kWcLocLenErr = 1;	// IB_WC_LOC_LEN_ERR: an error other than a flush

struct TxCounters {
	u64 packets = 0, bytes = 0, wc_errors = 0, ring_full = 0, dma = 0, post = 0, stopped = 0;
	SendCounters refs() { return {&packets, &bytes, &wc_errors, &ring_full, &dma, &post, &stopped}; }
};

// A ring of n sends bound to a fake QP and netdev, with one AH to send on.
struct TxOn {
	TxCounters c;
	kapi_qp *qp = fake_qp_new(nullptr);
	kapi_netdev *nd = fake_netdev_new();
	Ah *ah = new (kstd::Gfp::Kernel) Ah(*reinterpret_cast<Interface *>(g_no_if), nullptr);
	TxRing r{nullptr, c.refs(), g_txlog};
	bool ok = false;
	explicit TxOn(u32 n)
	{
		fake_tx_reset();
		fake_rcu_reset();
		ok = qp && nd && ah && kstd::ok(r.alloc(n));
		if (ok)
			r.bind(nd, qp, 0x55);
	}
	~TxOn()
	{
		r.drain();
		if (ah)
			ah->put();
		fake_qp_free(qp);
		fake_netdev_free(nd);
	}
	PostResult post(u32 len)
	{
		kapi_skb *s = kapi_skb_alloc(nullptr, len, 0, KAPI_GFP_KERNEL);
		if (!s)
			return PostResult::Dma;
		kapi_skb_put(s, len);
		TxQueueView at;	// xmit: up, the UD QP not in repair
		at.up = true;
		PostResult res = r.post(s, len, *ah, 0x123, 0x1b, at);
		if (res != PostResult::Posted)
			kapi_skb_free(s);	// the caller's again
		return res;
	}
	// NAPI: completes the oldest `n` accepted sends (in order) with status, then the batch.
	void complete(int n, u32 status = KAPI_WC_SUCCESS, bool up = true)
	{
		for (int i = 0; i < n; i++) {
			kapi_wc wc{};
			wc.wr_id = fake_ud_sends()->wr[done].wr_id;
			wc.status = status;
			done++;
			r.complete(wc);
		}
		TxQueueView at;
		at.up = up;
		r.completed(u32(n), at);
	}
	int done = 0;
};

} // namespace

KTEST(tx_ring, post_then_complete_counts_and_frees)
{
	TxOn t(8);
	ASSERT_TRUE(t.ok);
	EXPECT_EQ(t.post(100), PostResult::Posted);
	EXPECT_EQ(t.post(200), PostResult::Posted);
	EXPECT_EQ(t.post(300), PostResult::Posted);
	EXPECT_EQ(t.r.outstanding(), 3u);
	EXPECT_EQ(t.r.posted(), 3u);
	EXPECT_EQ(fake_dma_live(), 3);
	const struct fake_ud_sends *s = fake_ud_sends();
	ASSERT_EQ(s->n, 3);
	EXPECT_EQ(s->wr[1].len, 200u);
	EXPECT_EQ(s->wr[1].remote_qpn, 0x123u);
	EXPECT_EQ(s->wr[1].remote_qkey, 0x1bu);
	EXPECT_EQ(int(s->wr[2].signaled), 1);	// every send signalled: one slot per completion
	EXPECT_FALSE(t.ah->idle(0, 3));	// its last send (sequence 2) is in flight
	t.complete(3);
	EXPECT_EQ(t.r.outstanding(), 0u);
	EXPECT_EQ(t.r.completed(), 3u);
	EXPECT_EQ(t.c.packets, 3u);
	EXPECT_EQ(t.c.bytes, 600u);
	EXPECT_EQ(t.c.wc_errors, 0u);
	EXPECT_EQ(fake_dma_live(), 0);
	EXPECT_EQ(fake_skbs_live(), 0);
	EXPECT_TRUE(t.ah->idle(t.r.completed(), t.r.posted()));
	EXPECT_EQ(fake_tx_queue()->stops, 0);
}

// The post that fills the ring stops the queue; one more is refused (counted, the skb the
// caller's). Completions wake the queue once at most half the ring is in flight, and never
// while the interface is down.
KTEST(tx_ring, full_ring_stops_the_queue_and_half_empty_wakes_it)
{
	TxOn t(8);
	ASSERT_TRUE(t.ok);
	for (int i = 0; i < 7; i++)
		EXPECT_EQ(t.post(64), PostResult::Posted);
	EXPECT_FALSE(fake_tx_queue()->stopped);
	EXPECT_EQ(t.post(64), PostResult::Posted);	// the eighth fills it
	EXPECT_TRUE(fake_tx_queue()->stopped);
	EXPECT_EQ(t.c.stopped, 1u);
	EXPECT_EQ(t.post(64), PostResult::RingFull);
	EXPECT_EQ(t.c.ring_full, 1u);
	EXPECT_EQ(fake_ud_sends()->n, 8);
	t.complete(2, KAPI_WC_SUCCESS, false);	// down: no wake whatever the level
	EXPECT_TRUE(fake_tx_queue()->stopped);
	t.complete(1);				// 5 in flight of 8: still stopped
	EXPECT_TRUE(fake_tx_queue()->stopped);
	EXPECT_EQ(fake_tx_queue()->wakes, 0);
	t.complete(1);				// 4 = half: woken
	EXPECT_FALSE(fake_tx_queue()->stopped);
	EXPECT_EQ(fake_tx_queue()->wakes, 1);
	t.complete(4);
	EXPECT_EQ(t.c.packets, 8u);
	EXPECT_EQ(fake_skbs_live(), 0);
}

KTEST(tx_ring, a_refused_post_is_unmapped_and_counted)
{
	TxOn t(8);
	ASSERT_TRUE(t.ok);
	fake_ud_sends()->fail_next = 1;
	EXPECT_EQ(t.post(64), PostResult::Post);
	EXPECT_EQ(t.c.post, 1u);
	EXPECT_EQ(t.r.outstanding(), 0u);
	EXPECT_EQ(t.r.posted(), 0u);	// the sequence number is reused
	EXPECT_EQ(fake_dma_live(), 0);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	EXPECT_EQ(t.r.outstanding(), 1u);
	t.complete(1);
	EXPECT_EQ(fake_skbs_live(), 0);
}

KTEST(tx_ring, error_completions_free_and_count)
{
	TxOn t(8);
	ASSERT_TRUE(t.ok);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	t.complete(1, KAPI_WC_WR_FLUSH_ERR);
	t.complete(1, kWcLocLenErr);
	EXPECT_EQ(t.c.wc_errors, 2u);
	EXPECT_EQ(t.c.packets, 0u);
	EXPECT_EQ(t.c.bytes, 0u);
	EXPECT_EQ(fake_dma_live(), 0);
	EXPECT_EQ(fake_skbs_live(), 0);
}

// Teardown, with the QP gone: whatever was in flight is unmapped and freed.
KTEST(tx_ring, drain_releases_what_is_in_flight)
{
	TxOn t(4);
	ASSERT_TRUE(t.ok);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	t.complete(1);
	EXPECT_EQ(fake_skbs_live(), 2);
	t.r.drain();
	EXPECT_EQ(t.r.outstanding(), 0u);
	EXPECT_EQ(fake_dma_live(), 0);
	EXPECT_EQ(fake_skbs_live(), 0);
	EXPECT_EQ(t.c.packets, 1u);	// the drained ones are not sent packets
}

// stop(): an empty ring needs no wait; otherwise the waiter sleeps until NAPI's completions
// empty the ring and signal (here the fake wait runs "NAPI" once); without them it times out
// and a later completion no longer wakes anyone.
namespace {
void napi_completes_all(void *arg)
{
	TxOn &t = *static_cast<TxOn *>(arg);
	t.complete(int(t.r.outstanding()), KAPI_WC_SUCCESS, false);
}
void napi_completes_one(void *arg) { static_cast<TxOn *>(arg)->complete(1, KAPI_WC_SUCCESS, false); }
} // namespace

KTEST(tx_ring, wait_empty_is_signalled_by_the_completion_that_empties_the_ring)
{
	TxOn t(8);
	ASSERT_TRUE(t.ok);
	EXPECT_TRUE(t.r.wait_empty(2000));
	EXPECT_EQ(fake_waits(), 0);	// nothing outstanding: no sleep at all
	EXPECT_EQ(t.post(64), PostResult::Posted);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	t.complete(1);		// nobody waits: no wake-up
	EXPECT_EQ(fake_wakes(), 0);
	fake_wait_set_hook(napi_completes_all, &t);
	EXPECT_TRUE(t.r.wait_empty(2000));
	EXPECT_EQ(fake_waits(), 1);
	EXPECT_EQ(fake_wakes(), 1);
	EXPECT_EQ(fake_wait_timeouts(), 0);
	EXPECT_EQ(fake_skbs_live(), 0);
}

KTEST(tx_ring, wait_empty_times_out_while_sends_remain)
{
	TxOn t(8);
	ASSERT_TRUE(t.ok);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	EXPECT_EQ(t.post(64), PostResult::Posted);
	fake_wait_set_hook(napi_completes_one, &t);	// one of two: not empty
	EXPECT_FALSE(t.r.wait_empty(2000));
	EXPECT_EQ(fake_wait_timeouts(), 1);
	EXPECT_EQ(fake_wakes(), 0);
	t.complete(1);	// empties the ring after the waiter gave up: disarmed, no wake
	EXPECT_EQ(fake_wakes(), 0);
	EXPECT_EQ(t.r.outstanding(), 0u);
}

KTEST_SUITE(tx_ring, KTEST_CASE(tx_ring, post_then_complete_counts_and_frees),
	    KTEST_CASE(tx_ring, full_ring_stops_the_queue_and_half_empty_wakes_it),
	    KTEST_CASE(tx_ring, a_refused_post_is_unmapped_and_counted),
	    KTEST_CASE(tx_ring, error_completions_free_and_count),
	    KTEST_CASE(tx_ring, drain_releases_what_is_in_flight),
	    KTEST_CASE(tx_ring, wait_empty_is_signalled_by_the_completion_that_empties_the_ring),
	    KTEST_CASE(tx_ring, wait_empty_times_out_while_sends_remain));
