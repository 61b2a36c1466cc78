// SPDX-License-Identifier: GPL-2.0
// test_rings.cpp (host only, over kunit/host/fake_verbs.c): the tagged context check, the
// receive ring's replacement-first accounting, the completion dispatcher, QP/SRQ events,
// the work scheduling rule and page-fragment skb assembly.
#include "fake_verbs.h"
#include "core/rings/ipoib_dispatch.h"
#include "core/rings/ipoib_frag.h"
#include "core/rings/ipoib_recv_ring.h"
#include "core/cm/ipoib_srq.h"
#include "core/ipoib_work.h"
#include "core/rings/ipoib_wrid.h"
#include "kstd/seqlock.h"
#include "ktest.h"

using namespace ipoib;

namespace {

struct TestObj : Tagged<KAPI_CTX_TEST> {
	int value = 7;
};

kstd::Logger g_log{"test"};

struct Counters {
	u64 nomem = 0, wc_errors = 0, flushed = 0, post_errors = 0, refused = 0;
	RecvCounters refs() { return {&nomem, &wc_errors, &flushed, &post_errors, nullptr, nullptr, nullptr, &refused}; }
};

// A UD ring of n buffers on a fake QP, filled.
struct RingOn {
	Counters c;
	kapi_qp *qp = fake_qp_new(nullptr);
	RecvRing r{nullptr, RecvQueue::Ud, c.refs()};
	explicit RingOn(u32 n)
	{
		if (qp && kstd::ok(r.alloc(n))) {
			r.bind(nullptr, RecvTarget{qp, nullptr}, 0);
			ok = kstd::ok(r.fill(256));
		}
	}
	~RingOn()
	{
		r.release();
		if (qp)
			fake_qp_free(qp);
	}
	fake_rq &rq() { return *fake_qp_rq(qp); }
	bool ok = false;
};

// A UD receive completion of slot `slot` (wr_id tagged as the ring posts it).
kapi_wc recv_wc(kapi_ctx *qp, u64 slot, u32 status = KAPI_WC_SUCCESS, u32 len = 100)
{
	kapi_wc wc{};
	wc.qp_ctx = qp;
	wc.wr_id = wrid(WrKind::UdRecv, u32(slot));
	wc.status = status;
	wc.byte_len = len;
	wc.is_recv = 1;
	return wc;
}

} // namespace

// ---- ctx_tag ----
KTEST(ctx_tag, live_object_converts)
{
	TestObj o;
	EXPECT_EQ(from_ctx<TestObj>(o.ctx()), &o);
	EXPECT_EQ(from_ctx<TestObj>(o.ctx())->value, 7);
}

KTEST(ctx_tag, wrong_canary_is_caught)
{
	TestObj o;
	o.canary ^= 1;	// a corrupt or foreign pointer
	ktest_warn_catch_begin();
	EXPECT_NULL(from_ctx<TestObj>(o.ctx()));
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	o.canary ^= 1;
}

KTEST(ctx_tag, wrong_kind_is_caught)
{
	TestObj o;
	ktest_warn_catch_begin();
	EXPECT_NULL(from_ctx<UdQp>(o.ctx()));	// a test object is not a QP
	EXPECT_NULL(from_ctx<TestObj>(nullptr));
	EXPECT_EQ(ktest_warn_catch_end(), 2);
}

// ---- recv_ring ----
KTEST(recv_ring, fill_posts_every_slot)
{
	{
		RingOn t(8);
		ASSERT_TRUE(t.ok);
		EXPECT_TRUE(t.r.filled());
		EXPECT_EQ(t.r.posted(), 8u);
		EXPECT_EQ(t.rq().nposted, 8);
		EXPECT_EQ(fake_skbs_live(), 8);
		EXPECT_EQ(fake_dma_live(), 8);
	}
	EXPECT_EQ(fake_skbs_live(), 0);	// release()
	EXPECT_EQ(fake_dma_live(), 0);
}

// The invariant: whatever allocation does, every completed buffer is reposted, so the HCA
// never runs out of receive buffers because memory was short.
KTEST(recv_ring, never_shrinks_under_allocation_failure)
{
	RingOn t(8);
	ASSERT_TRUE(t.ok);
	const int before = t.rq().nposted;
	{
		ktest::AllocFailAll fail;
		for (u64 i = 0; i < 8; i++)
			EXPECT_NULL(t.r.complete(recv_wc(nullptr, i)));
		t.r.repost();
	}
	EXPECT_EQ(t.c.nomem, 8u);
	EXPECT_EQ(t.r.posted(), 8u);
	EXPECT_EQ(t.rq().nposted - before, 8);
	// the same buffers went back: slot i's address again
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(t.rq().posted[before + i].addr, t.rq().posted[i].addr);
	EXPECT_EQ(fake_skbs_live(), 8);
}

KTEST(recv_ring, replacement_first_hands_up_the_filled_buffer)
{
	RingOn t(4);
	ASSERT_TRUE(t.ok);
	const u64 old_addr = t.rq().posted[2].addr;
	kapi_skb *skb = t.r.complete(recv_wc(nullptr, 2));
	ASSERT_NOT_NULL(skb);
	EXPECT_EQ(u64(reinterpret_cast<unsigned long>(kapi_skb_data(skb))), old_addr);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 4u);
	EXPECT_NE(t.rq().posted[4].addr, old_addr);	// a fresh buffer in slot 2
	EXPECT_EQ(t.rq().posted[4].wr_id, wrid(WrKind::UdRecv, 2));
	EXPECT_EQ(fake_skbs_live(), 5);
	kapi_skb_free(skb);
}

// A replacement skb that cannot be mapped is freed by its slot's handle (no leak, no
// mapping left behind); the packet is dropped and the filled buffer reposted.
KTEST(recv_ring, unmappable_replacement_is_freed_and_the_buffer_reposted)
{
	RingOn t(4);
	ASSERT_TRUE(t.ok);
	const u64 old_addr = t.rq().posted[1].addr;
	fake_dma_fail_next(1);
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 1)));
	t.r.repost();
	EXPECT_EQ(t.c.nomem, 1u);
	EXPECT_EQ(t.r.posted(), 4u);
	EXPECT_EQ(t.rq().posted[4].addr, old_addr);
	EXPECT_EQ(fake_skbs_live(), 4);
	EXPECT_EQ(fake_dma_live(), 4);
}

// The UD queue's rule: an error completion's buffer is reposted (the QP stays up); a flush
// means the QP is in ERROR (teardown), so the ring stops: the flushed buffer stays in its
// slot and nothing more is posted, not even an errored buffer queued before it.
KTEST(recv_ring, errors_repost_flushes_stop)
{
	RingOn t(4);
	ASSERT_TRUE(t.ok);
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 0, 4 /* a local protection error */)));
	t.r.repost();
	EXPECT_EQ(t.c.wc_errors, 1u);
	EXPECT_EQ(t.r.posted(), 4u);	// the errored buffer went back
	EXPECT_EQ(t.rq().nposted, 5);
	EXPECT_FALSE(t.r.stopped());
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 1, KAPI_WC_WR_FLUSH_ERR)));
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 2, 4)));
	t.r.repost();
	EXPECT_EQ(t.c.flushed, 1u);
	EXPECT_TRUE(t.r.stopped());
	EXPECT_EQ(t.r.posted(), 2u);	// slots 0 and 3
	EXPECT_EQ(t.rq().nposted, 5);	// nothing posted after the flush
	EXPECT_EQ(fake_skbs_live(), 4);	// every buffer still the ring's
}

// The UD QP repaired from ERROR (Interface::repair_ud_qp): after a reset the QP holds no
// receive (IBA 10.3.1: Reset empties the work queues), so restart() queues every buffer the
// ring holds (flushed and held, still posted when the reset discarded it, or queued) and
// reposts them: the same buffers, none allocated, none lost, the ring live again.
KTEST(recv_ring, restart_reposts_every_buffer_after_a_reset)
{
	RingOn t(4);
	ASSERT_TRUE(t.ok);
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 0, KAPI_WC_WR_FLUSH_ERR)));
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 1, KAPI_WC_WR_FLUSH_ERR)));
	t.r.repost();
	EXPECT_TRUE(t.r.stopped());
	EXPECT_EQ(t.r.posted(), 2u);	// slots 2 and 3: the reset discards them, no completion
	EXPECT_EQ(t.c.flushed, 2u);
	EXPECT_EQ(t.c.wc_errors, 0u);	// a flush is not an error
	const int before = t.rq().nposted;
	const long calls = ktest_alloc_calls();
	t.r.restart();
	EXPECT_FALSE(t.r.stopped());
	EXPECT_EQ(t.r.posted(), 4u);
	EXPECT_EQ(t.rq().nposted, before + 4);
	EXPECT_EQ(ktest_alloc_calls(), calls);	// the same buffers
	EXPECT_EQ(fake_skbs_live(), 4);
	EXPECT_EQ(fake_dma_live(), 4);
	// live: a completion hands its packet up and the slot is reposted
	kapi_skb *skb = t.r.complete(recv_wc(nullptr, 2));
	EXPECT_NOT_NULL(skb);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 4u);
	kapi_skb_free(skb);
}

// A completion for a slot whose buffer is not posted (a duplicate CQE, a wr_id past the
// ring) is refused on the UD ring as on the others: counted, warned once, never handed up,
// and posted() is not lowered twice.
KTEST(recv_ring, duplicate_completion_is_refused)
{
	RingOn t(4);
	ASSERT_TRUE(t.ok);
	kapi_skb *skb = t.r.complete(recv_wc(nullptr, 3, KAPI_WC_SUCCESS, 200));
	ASSERT_NOT_NULL(skb);
	EXPECT_EQ(kapi_skb_len(skb), 200u);	// the ring puts byte_len
	kapi_skb_free(skb);
	ktest_warn_catch_begin();
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 3)));	// queued, not posted
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 9)));	// no such slot
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	EXPECT_EQ(t.r.refused(), 2u);
	EXPECT_EQ(t.r.posted(), 3u);
	EXPECT_EQ(t.r.queued(), 1u);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 4u);
	EXPECT_EQ(fake_skbs_live(), 4);
}

// More than the buffer holds cannot be a correct receive (IBA 11.4.2.1): refused, the same
// buffer reposted, nothing handed up.
KTEST(recv_ring, byte_len_over_the_buffer_is_refused)
{
	RingOn t(2);
	ASSERT_TRUE(t.ok);
	ktest_warn_catch_begin();
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 0, KAPI_WC_SUCCESS, 257)));
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	t.r.repost();
	EXPECT_EQ(t.r.refused(), 1u);
	EXPECT_EQ(t.r.posted(), 2u);
	EXPECT_EQ(t.rq().posted[2].addr, t.rq().posted[0].addr);
}

KTEST(recv_ring, repost_failure_is_counted)
{
	RingOn t(2);
	ASSERT_TRUE(t.ok);
	kapi_skb *skb = t.r.complete(recv_wc(nullptr, 0));
	ASSERT_NOT_NULL(skb);
	kapi_skb_free(skb);
	t.rq().fail_next_post = 1;
	t.r.repost();
	EXPECT_EQ(t.c.post_errors, 1u);
	EXPECT_EQ(t.r.posted(), 1u);
}

// A provider that posts the WRs before the one it refuses (mlx5, rxe): the posted ones are
// the HCA's, the refused ones stay queued and go out on the next repost.
KTEST(recv_ring, partial_post_keeps_the_rest_queued)
{
	RingOn t(8);
	ASSERT_TRUE(t.ok);
	for (u64 i = 0; i < 8; i++) {
		kapi_skb *skb = t.r.complete(recv_wc(nullptr, i));
		ASSERT_NOT_NULL(skb);
		kapi_skb_free(skb);
	}
	EXPECT_EQ(t.r.posted(), 0u);
	t.rq().partial_next = 3;
	t.r.repost();
	EXPECT_EQ(t.c.post_errors, 1u);
	EXPECT_EQ(t.r.posted(), 3u);		// was 0: the 3 the provider took were not counted
	EXPECT_EQ(t.rq().nposted, 8 + 3);
	t.r.repost();				// the next repost retries the other 5
	EXPECT_EQ(t.r.posted(), 8u);		// was 0: they had been dropped from the queue
	EXPECT_EQ(t.rq().nposted, 8 + 8);
	for (int i = 0; i < 8; i++)		// each slot once, in order
		EXPECT_EQ(t.rq().posted[8 + i].wr_id, wrid(WrKind::UdRecv, u32(i)));
	EXPECT_EQ(fake_skbs_live(), 8);
}

// The UD ring counts what it holds (its tables, and per slot the
// RxBuf and its head's truesize: in the fake an skb's allocation + 64) and 0 after release();
// a refused completion reaches the owner's counter (ethtool rx_refused).
KTEST(recv_ring, bytes_and_refused_counter)
{
	RingOn t(8);
	ASSERT_TRUE(t.ok);
	EXPECT_EQ(t.r.bytes(), 8 * (sizeof(kstd::Unique<RxBuf>) + sizeof(u32)) + 8 * (sizeof(RxBuf) + 256 + 64));
	ktest_warn_catch_begin();
	EXPECT_NULL(t.r.complete(recv_wc(nullptr, 99)));	// a slot it does not have
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	EXPECT_EQ(t.r.refused(), 1u);
	EXPECT_EQ(t.c.refused, 1u);
	t.r.release();
	EXPECT_EQ(t.r.bytes(), 0u);
}

// A first fill that ran out of memory part-way: the buffers it posted stay the HCA's, and the
// next fill only adds the missing ones (never a slot twice, never a posted buffer lost).
KTEST(recv_ring, failed_first_fill_resumes)
{
	Counters c;
	kapi_qp *qp = fake_qp_new(nullptr);
	ASSERT_NOT_NULL(qp);
	{
		RecvRing r{nullptr, RecvQueue::Ud, c.refs()};
		ASSERT_OK(r.alloc(8));
		r.bind(nullptr, RecvTarget{qp, nullptr}, 0);
		ktest_alloc_fail_nth(9);	// a slot's RxBuf + its skb's 2 allocations: slot 3's fails
		EXPECT_FALSE(kstd::ok(r.fill(256)));
		ktest_alloc_fail_nth(-1);
		EXPECT_FALSE(r.filled());
		EXPECT_EQ(r.posted(), 3u);
		EXPECT_EQ(fake_qp_rq(qp)->nposted, 3);
		EXPECT_OK(r.fill(256));		// the retry
		EXPECT_TRUE(r.filled());
		EXPECT_EQ(r.posted(), 8u);	// was 11: slots 0-2 posted again over their buffers
		EXPECT_EQ(fake_qp_rq(qp)->nposted, 8);
		for (int i = 0; i < fake_qp_rq(qp)->nposted && i < 8; i++)
			EXPECT_EQ(fake_qp_rq(qp)->posted[i].wr_id, wrid(WrKind::UdRecv, u32(i)));
		EXPECT_EQ(fake_skbs_live(), 8);	// was 11: three leaked
		EXPECT_EQ(fake_dma_live(), 8);
	}
	fake_qp_free(qp);
	EXPECT_EQ(fake_skbs_live(), 0);
	EXPECT_EQ(fake_dma_live(), 0);
}

// ---- dispatch ----
KTEST(dispatch, completions_go_to_the_tagged_qp)
{
	UdQp a(g_log), b(g_log);
	kapi_cq *cq = fake_cq_new();
	ASSERT_NOT_NULL(cq);
	TestObj other;
	for (u64 i = 0; i < 40; i++)
		fake_cq_push(cq, &static_cast<const kapi_wc &>(recv_wc(i % 2 ? a.ctx() : b.ctx(), i)));
	kapi_wc bad = recv_wc(other.ctx(), 99);
	fake_cq_push(cq, &bad);
	kapi_wc stale = recv_wc(nullptr, 100);
	fake_cq_push(cq, &stale);
	int to_a = 0, to_b = 0, batches = 0;
	u64 foreign = 0;
	int n = dispatch_cq(
		cq, 64, foreign,
		[&](UdQp &qp, const kapi_wc &wc) {
			if (&qp == &a && wrid_slot(wc.wr_id) % 2 == 1)
				to_a++;
			if (&qp == &b && wrid_slot(wc.wr_id) % 2 == 0)
				to_b++;
			return true;
		},
		[](RcQp &, const kapi_wc &) { return true; },
		[&](u32) { batches++; });
	EXPECT_EQ(n, 42);
	EXPECT_EQ(to_a, 20);
	EXPECT_EQ(to_b, 20);
	EXPECT_EQ(foreign, 2u);	// a non-QP context and no context: counted, not dispatched
	EXPECT_EQ(batches, 3);	// 16 + 16 + 10
	EXPECT_LE(fake_cq_max_poll(cq), int(kPollBatch));
	fake_cq_free(cq);
}

// on_batch(n) is what the send ring advances its tail by: only UD send completions an owner
// took may count, or the tail passes sends still in flight (and their skb/DMA are never freed).
KTEST(dispatch, batch_counts_only_what_was_dispatched)
{
	UdQp mine(g_log), other_qp(g_log);
	kapi_cq *cq = fake_cq_new();
	ASSERT_NOT_NULL(cq);
	TestObj other;
	for (u64 i = 0; i < 20; i++) {
		kapi_ctx *c = i % 4 == 1 ? other_qp.ctx() : i % 4 == 3 ? other.ctx() : mine.ctx();
		kapi_wc wc = recv_wc(c, i);
		wc.wr_id = wrid(WrKind::UdSend, u32(i));
		fake_cq_push(cq, &wc);
	}
	u64 foreign = 0;
	u32 batched = 0;
	int taken = 0;
	int n = dispatch_cq(
		cq, 64, foreign,
		[&](UdQp &qp, const kapi_wc &) {
			if (&qp != &mine)
				return false;	// not the QP this CQ serves
			taken++;
			return true;
		},
		[](RcQp &, const kapi_wc &) { return true; },
		[&](u32 k) { batched += k; });
	EXPECT_EQ(n, 20);		// all polled (the NAPI budget counts them)
	EXPECT_EQ(taken, 10);
	EXPECT_EQ(batched, 10u);	// was 20: every polled entry, foreign ones included
	EXPECT_EQ(foreign, 10u);	// another UD QP's (5) and a non-QP context's (5)
	fake_cq_free(cq);
}

KTEST(dispatch, budget_bounds_the_poll)
{
	UdQp a(g_log);
	kapi_cq *cq = fake_cq_new();
	ASSERT_NOT_NULL(cq);
	for (u64 i = 0; i < 30; i++)
		fake_cq_push(cq, &static_cast<const kapi_wc &>(recv_wc(a.ctx(), i)));
	u64 foreign = 0;
	int seen = 0;
	EXPECT_EQ(dispatch_cq(
			  cq, 20, foreign, [&](UdQp &, const kapi_wc &) { seen++; return true; },
			  [](RcQp &, const kapi_wc &) { return true; }, [](u32) {}),
		  20);
	EXPECT_EQ(seen, 20);
	EXPECT_EQ(fake_cq_pending(cq), 10);
	fake_cq_free(cq);
}

// ---- qp_events ----
KTEST(qp_events, counted_per_kind)
{
	UdQp qp(g_log);
	ASSERT_OK(qp.create(nullptr, nullptr, nullptr, 16, 16));
	deliver_qp_event(qp.ctx(), KAPI_QPEV_COMM_EST);
	deliver_qp_event(qp.ctx(), KAPI_QPEV_LAST_WQE_REACHED);
	deliver_qp_event(qp.ctx(), KAPI_QPEV_LAST_WQE_REACHED);
	deliver_qp_event(qp.ctx(), KAPI_QPEV_FATAL);
	EXPECT_EQ(qp.events().get(KAPI_QPEV_COMM_EST), 1u);
	EXPECT_EQ(qp.events().get(KAPI_QPEV_LAST_WQE_REACHED), 2u);
	EXPECT_EQ(qp.events().get(KAPI_QPEV_FATAL), 1u);
	EXPECT_EQ(qp.events().get(KAPI_QPEV_SRQ_LIMIT_REACHED), 0u);
}

// A send error leaves the UD QP in SQE (IBA 10.3.1): recover() moves it back to RTS; RTS is
// left alone, ERROR and a refused transition are reported, not hidden.
KTEST(qp_events, sqe_recovered_to_rts)
{
	UdQp qp(g_log);
	EXPECT_TRUE(qp.recover() == UdQp::Recovery::NotNeeded);	// not brought up
	ASSERT_OK(qp.create(nullptr, nullptr, nullptr, 16, 16));
	ASSERT_OK(qp.to_rts(1, 0));
	fake_ud_state = KAPI_QPS_RTS;
	EXPECT_TRUE(qp.recover() == UdQp::Recovery::NotNeeded);
	fake_ud_state = KAPI_QPS_SQE;
	EXPECT_TRUE(qp.recover() == UdQp::Recovery::Recovered);
	EXPECT_EQ(fake_ud_state, int(KAPI_QPS_RTS));
	fake_ud_state = KAPI_QPS_SQE;
	fake_sqe_to_rts_err = -KAPI_EINVAL;
	EXPECT_TRUE(qp.recover() == UdQp::Recovery::Failed);
	fake_sqe_to_rts_err = 0;
	fake_ud_state = KAPI_QPS_ERR;
	EXPECT_TRUE(qp.recover() == UdQp::Recovery::InError);
	fake_ud_state = KAPI_QPS_RTS;
}

// A fatal event (the QP in ERROR) reaches the owner's hook, which asks its work for the
// repair; the other kinds are only counted.
namespace {
int g_fatal_seen = 0;
void fatal_hook(void *owner) { *static_cast<int *>(owner) += 1; }
} // namespace
KTEST(qp_events, fatal_event_reaches_the_owner)
{
	UdQp qp(g_log);
	g_fatal_seen = 0;
	qp.on_fatal(fatal_hook, &g_fatal_seen);
	ASSERT_OK(qp.create(nullptr, nullptr, nullptr, 16, 16));
	deliver_qp_event(qp.ctx(), KAPI_QPEV_COMM_EST);
	deliver_qp_event(qp.ctx(), KAPI_QPEV_OTHER);
	EXPECT_EQ(g_fatal_seen, 0);
	deliver_qp_event(qp.ctx(), KAPI_QPEV_FATAL);
	EXPECT_EQ(g_fatal_seen, 1);
	EXPECT_EQ(qp.events().get(KAPI_QPEV_FATAL), 1u);
}

// A QP in ERROR leaves it only through RESET (IBA 10.3.1): reset_to_rts() takes it RESET ->
// INIT -> RTR -> RTS; a refused reset is reported and the QP left where it was.
KTEST(qp_events, error_reset_to_rts)
{
	UdQp qp(g_log);
	ASSERT_OK(qp.create(nullptr, nullptr, nullptr, 16, 16));
	ASSERT_OK(qp.to_rts(1, 3));
	fake_ud_state = KAPI_QPS_ERR;
	fake_reset_err = -KAPI_EINVAL;
	EXPECT_FALSE(kstd::ok(qp.reset_to_rts()));
	EXPECT_EQ(fake_ud_state, int(KAPI_QPS_ERR));
	fake_reset_err = 0;
	EXPECT_OK(qp.reset_to_rts());
	EXPECT_EQ(fake_ud_state, int(KAPI_QPS_RTS));
	EXPECT_TRUE(qp.ready());
}

// The link's Q_Key has one owner, the UD QP: what the broadcast join sets is what every send
// names (qkey()) and what a repair brings the QP back with, without the caller passing it.
KTEST(qp_events, qkey_owned_by_the_qp)
{
	UdQp qp(g_log);
	ASSERT_OK(qp.create(nullptr, nullptr, nullptr, 16, 16));
	ASSERT_OK(qp.to_rts(1, 3));
	EXPECT_EQ(qp.qkey(), 0u);	// before the join
	EXPECT_EQ(fake_ud_qkey, 0u);
	EXPECT_OK(qp.set_qkey(0x1b));
	EXPECT_EQ(qp.qkey(), 0x1bu);
	EXPECT_EQ(fake_ud_qkey, 0x1bu);
	fake_ud_qkey = 0;
	fake_ud_state = KAPI_QPS_ERR;
	EXPECT_OK(qp.reset_to_rts());
	EXPECT_EQ(fake_ud_qkey, 0x1bu);	// INIT again with the group's Q_Key
	EXPECT_EQ(qp.qkey(), 0x1bu);
}

KTEST(qp_events, srq_events_reach_the_srq)
{
	Srq srq(g_log);
	deliver_srq_event(srq.ctx(), KAPI_QPEV_SRQ_LIMIT_REACHED);
	deliver_srq_event(srq.ctx(), KAPI_QPEV_SRQ_ERR);
	EXPECT_EQ(srq.events().get(KAPI_QPEV_SRQ_LIMIT_REACHED), 1u);
	EXPECT_EQ(srq.events().get(KAPI_QPEV_SRQ_ERR), 1u);
	// an SRQ event with a QP's context is refused, not counted on the wrong object
	UdQp qp(g_log);
	ktest_warn_catch_begin();
	deliver_srq_event(qp.ctx(), KAPI_QPEV_SRQ_LIMIT_REACHED);
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	EXPECT_EQ(qp.events().get(KAPI_QPEV_SRQ_LIMIT_REACHED), 0u);
}

// ---- work_rule ----
KTEST(work_rule, requests_only_bring_the_work_forward)
{
	kapi_netdev *nd = fake_netdev_new();
	ASSERT_NOT_NULL(nd);
	fake_work *w = fake_netdev_work(nd);
	schedule_work(nd, 100);	// idle: queued for 100
	EXPECT_EQ(w->pending, 1);
	EXPECT_EQ(w->due_ms, 100u);
	schedule_work(nd, 500);	// later: ignored
	EXPECT_EQ(w->due_ms, 100u);
	EXPECT_EQ(w->mods, 0);
	schedule_work(nd, 30);	// earlier: moved
	EXPECT_EQ(w->due_ms, 30u);
	EXPECT_EQ(w->mods, 1);
	schedule_work(nd, 0);	// now: always
	EXPECT_EQ(w->due_ms, 0u);
	schedule_work(nd, 10);	// already due now: stays
	EXPECT_EQ(w->due_ms, 0u);
	fake_netdev_free(nd);
}

// ---- frag_skb ----
KTEST(frag_skb, layout)
{
	FragLayout l = frag_layout(100, kFragHeadMax, kFragPages);
	EXPECT_TRUE(l.fits);
	EXPECT_EQ(l.head, 100u);
	EXPECT_EQ(l.pages, 0u);
	l = frag_layout(kFragHeadMax + 1, kFragHeadMax, kFragPages);
	EXPECT_EQ(l.head, kFragHeadMax);
	EXPECT_EQ(l.pages, 1u);
	EXPECT_EQ(l.last, 1u);
	l = frag_layout(kFragBufSize, kFragHeadMax, kFragPages);
	EXPECT_TRUE(l.fits);
	EXPECT_EQ(l.pages, kFragPages);
	EXPECT_EQ(l.last, kFragBufSize - kFragHeadMax - (kFragPages - 1) * u32(KAPI_PAGE_SIZE));
	l = frag_layout(kFragHeadMax + kFragPages * u32(KAPI_PAGE_SIZE), kFragHeadMax, kFragPages);
	EXPECT_TRUE(l.fits);
	EXPECT_EQ(l.last, u32(KAPI_PAGE_SIZE));
	EXPECT_FALSE(frag_layout(kFragHeadMax + kFragPages * u32(KAPI_PAGE_SIZE) + 1, kFragHeadMax, kFragPages).fits);
}

KTEST(frag_skb, a_64k_receive_from_order0_pages)
{
	kapi_page *pages[kFragPages] = {};
	for (u32 i = 0; i < kFragPages; i++) {
		pages[i] = kapi_page_alloc(KAPI_GFP_KERNEL);
		ASSERT_NOT_NULL(pages[i]);
	}
	kapi_skb *skb = kapi_skb_alloc(nullptr, kFragHeadMax, 0, KAPI_GFP_KERNEL);
	ASSERT_NOT_NULL(skb);
	const u32 len = 65520 - 4;	// RFC 4755 connected-mode MTU + the encapsulation header
	FragLayout l = frag_layout(len, kFragHeadMax, kFragPages);
	ASSERT_TRUE(l.fits);
	EXPECT_EQ(frag_attach(skb, l, pages), kFragPages);
	EXPECT_EQ(kapi_skb_len(skb), len);
	EXPECT_EQ(kapi_skb_nr_frags(skb), kFragPages);
	u32 sum = 0;
	for (u32 i = 0; i < kFragPages; i++)
		sum += fake_skb_frag_len(skb, int(i));
	EXPECT_EQ(sum, len - kFragHeadMax);
	EXPECT_EQ(fake_skb_frag_len(skb, int(kFragPages - 1)), len - kFragHeadMax - (kFragPages - 1) * KAPI_PAGE_SIZE);
	kapi_skb_free(skb);	// frees the pages it took over
}

KTEST_SUITE(ctx_tag, KTEST_CASE(ctx_tag, live_object_converts), KTEST_CASE(ctx_tag, wrong_canary_is_caught),
	    KTEST_CASE(ctx_tag, wrong_kind_is_caught));
KTEST_SUITE(recv_ring, KTEST_CASE(recv_ring, fill_posts_every_slot),
	    KTEST_CASE(recv_ring, never_shrinks_under_allocation_failure),
	    KTEST_CASE(recv_ring, replacement_first_hands_up_the_filled_buffer),
	    KTEST_CASE(recv_ring, unmappable_replacement_is_freed_and_the_buffer_reposted), KTEST_CASE(recv_ring, errors_repost_flushes_stop),
	    KTEST_CASE(recv_ring, restart_reposts_every_buffer_after_a_reset),
	    KTEST_CASE(recv_ring, duplicate_completion_is_refused), KTEST_CASE(recv_ring, byte_len_over_the_buffer_is_refused), KTEST_CASE(recv_ring, repost_failure_is_counted),
	    KTEST_CASE(recv_ring, partial_post_keeps_the_rest_queued),
	    KTEST_CASE(recv_ring, failed_first_fill_resumes), KTEST_CASE(recv_ring, bytes_and_refused_counter));
KTEST_SUITE(dispatch, KTEST_CASE(dispatch, completions_go_to_the_tagged_qp), KTEST_CASE(dispatch, budget_bounds_the_poll),
	    KTEST_CASE(dispatch, batch_counts_only_what_was_dispatched));
KTEST_SUITE(qp_events, KTEST_CASE(qp_events, counted_per_kind), KTEST_CASE(qp_events, sqe_recovered_to_rts), KTEST_CASE(qp_events, error_reset_to_rts), KTEST_CASE(qp_events, qkey_owned_by_the_qp), KTEST_CASE(qp_events, fatal_event_reaches_the_owner), KTEST_CASE(qp_events, srq_events_reach_the_srq));
KTEST_SUITE(work_rule, KTEST_CASE(work_rule, requests_only_bring_the_work_forward));
KTEST_SUITE(frag_skb, KTEST_CASE(frag_skb, layout), KTEST_CASE(frag_skb, a_64k_receive_from_order0_pages));

// ---- seq_words: the published-addresses copy NAPI and xmit read ----
KTEST(seq_words, readers_see_the_last_complete_write)
{
	kstd::SeqWords<3> w;
	u64 out[3] = {9, 9, 9};
	w.read(out);
	EXPECT_EQ(out[0], 0u);
	const u64 a[3] = {1, 2, 3};
	w.write(a);
	w.read(out);
	EXPECT_EQ(out[0], 1u);
	EXPECT_EQ(out[2], 3u);
	EXPECT_EQ(w.sequence(), 2u);	// even: no write in progress
	const u64 b[3] = {4, 5, 6};
	w.write(b);
	w.read(out);
	EXPECT_EQ(out[1], 5u);
	EXPECT_EQ(w.sequence() % 2, 0u);
}
KTEST_SUITE(seq_words, KTEST_CASE(seq_words, readers_see_the_last_complete_write));
