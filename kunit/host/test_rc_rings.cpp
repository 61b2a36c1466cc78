// SPDX-License-Identifier: GPL-2.0
// test_rc_rings.cpp (host only, over kunit/host/fake_verbs.c): wr_id tags, connected mode's
// multi-SGE receive ring (RecvRing on the SRQ or an RC QP's own queue: replacement first, the never-zero invariant, error
// and flush handling on the SRQ and on a QP's own queue, growth) and the dispatcher's
// routing by wr_id kind and tagged context (docs/connected.md §4, §5, §7).
#include "fake_verbs.h"
#include "core/cm/ipoib_cm_wire.h"
#include "core/rings/ipoib_dispatch.h"
#include "core/rings/ipoib_recv_ring.h"
#include "core/rings/ipoib_wrid.h"
#include "ktest.h"

using namespace ipoib;
using ipoib::cm::kMaxRecvMtu;

namespace {

kstd::Logger g_log{"test"};

struct Conn : RcQp {
	int id = 0;
};
struct Other : Tagged<KAPI_CTX_TEST> {};

struct RcCounters {
	u64 nomem = 0, wc_errors = 0, flushed = 0, post_errors = 0, grown = 0, grow_failed = 0, shrunk = 0;
	u64 refused = 0, left_empty = 0, grow_refused = 0;
	RecvCounters refs()
	{
		return {&nomem,	 &wc_errors, &flushed, &post_errors, &grown,
			&grow_failed, &shrunk, &refused, &left_empty, &grow_refused};
	}
};

// An RC QP (own receive queue, or attached to an SRQ) on one CQ, with its ring.
struct RcOn {
	RcCounters c;
	Conn conn;
	kapi_cq *cq = fake_cq_new();
	kapi_srq *srq = nullptr;
	kapi_qp *qp = nullptr;
	RecvRing r;
	bool ok = false;
	RcOn(u32 max_entries, u32 initial, bool on_srq = false, u32 buf = kMaxRecvMtu)
		: r(nullptr, on_srq ? RecvQueue::Srq : RecvQueue::RcQp, c.refs())
	{
		if (on_srq)
			srq = kapi_srq_create(nullptr, max_entries, RecvRing::sges_for(buf), 0, nullptr);
		kapi_qp_init init{};
		init.ctx = conn.ctx();
		init.recv_wr = max_entries;
		init.recv_sge = RecvRing::sges_for(buf);
		qp = kapi_rc_qp_create(nullptr, cq, srq, &init);
		if (!cq || !qp || (on_srq && !srq) || !kstd::ok(r.alloc(max_entries, buf)))
			return;
		r.bind(nullptr, RecvTarget{srq ? nullptr : qp, srq}, 0);
		ok = kstd::ok(r.post_initial(initial));
	}
	~RcOn()
	{
		r.release();
		if (qp)
			kapi_qp_destroy(qp);
		if (srq)
			kapi_srq_destroy(srq);
		fake_cq_free(cq);
	}
	fake_rq &rq() { return *(srq ? fake_srq_rq(srq) : fake_qp_rq(qp)); }
	// The HCA fills the oldest posted receive (a completion on the CQ).
	bool consume(u32 len, u32 status = KAPI_WC_SUCCESS)
	{
		return fake_rq_consume(&rq(), cq, conn.ctx(), status, len) == 1;
	}
	// The HCA fills one receive and NAPI polls its completion (not yet given to the ring).
	bool next_wc(kapi_wc &wc, u32 len)
	{
		return consume(len) && kapi_cq_poll(cq, &wc, 1) == 1;
	}
	// A stream: windows 1 ms apart, each draining every posted buffer, until the ring
	// holds `to` buffers (at most 16 windows). True when it got there.
	bool ramp(u32 to, u64 &now)
	{
		for (int k = 0; k < 16 && r.active() < to; k++) {
			const u32 n = r.posted();
			for (u32 i = 0; i < n; i++)
				if (!consume(100))
					return false;
			poll(nullptr, true, now += 1);
		}
		return r.active() == to;
	}
	// n messages, each in its own window gap_ms after the last. The skbs handed up.
	int spaced(u32 n, u64 gap_ms, u64 &now)
	{
		int up = 0;
		for (u32 i = 0; i < n && consume(100); i++)
			up += poll(nullptr, true, now += gap_ms);
		return up;
	}
	// NAPI: every queued completion through the ring; filled skbs are freed (as the stack
	// would), their lengths summed. Returns the skbs handed up.
	int poll(u64 *bytes = nullptr, bool grow = false, u64 now = 0)
	{
		kapi_wc wc[kPollBatch];
		int up = 0, n;
		while ((n = kapi_cq_poll(cq, wc, int(kPollBatch))) > 0) {
			for (int i = 0; i < n; i++) {
				if (kapi_skb *skb = r.complete(wc[i])) {
					if (bytes)
						*bytes += kapi_skb_len(skb);
					kapi_skb_free(skb);
					up++;
				}
			}
		}
		if (grow)
			r.adapt(now);
		r.repost();
		return up;
	}
};

// A deterministic generator for the random sequences (xorshift32).
struct Rng {
	u32 s;
	u32 next()
	{
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		return s;
	}
	u32 below(u32 n) { return next() % n; }
};

kapi_wc wc_of(kapi_ctx *ctx, u64 wr_id, u32 status, u8 is_recv)
{
	kapi_wc wc{};
	wc.qp_ctx = ctx;
	wc.wr_id = wr_id;
	wc.status = status;
	wc.is_recv = is_recv;
	return wc;
}

} // namespace

// ---- wrid ----
KTEST(wrid, round_trip)
{
	const WrKind kinds[] = {WrKind::UdRecv, WrKind::UdSend, WrKind::RcRecv, WrKind::RcSend, WrKind::Drain};
	const u32 slots[] = {0, 1, 255, 0x7fffffffu, 0xffffffffu};
	for (WrKind k : kinds)
		for (u32 s : slots) {
			EXPECT_TRUE(wrid_kind(wrid(k, s)) == k);
			EXPECT_EQ(wrid_slot(wrid(k, s)), s);
		}
	EXPECT_EQ(wrid(WrKind::RcRecv, 5) >> 60, 3u);	// the contract's bit layout
	EXPECT_TRUE(wrid_kind(5) == WrKind::None);	// an untagged id (the old UD slot numbers)
	EXPECT_TRUE(wrid_kind(u64(6) << 60) == WrKind::None);
	EXPECT_TRUE(wrid_kind(u64(15) << 60 | 3) == WrKind::None);
	EXPECT_TRUE(wrid_is_recv(WrKind::RcRecv) && wrid_is_recv(WrKind::UdRecv));
	EXPECT_FALSE(wrid_is_recv(WrKind::Drain) || wrid_is_recv(WrKind::RcSend) || wrid_is_recv(WrKind::UdSend));
}

// ---- rc_recv_ring ----
KTEST(rc_recv_ring, sges_and_receive_mtu)
{
	EXPECT_EQ(RecvRing::sges_for(kMaxRecvMtu), 17u);	// an order-0 head + 16 pages
	EXPECT_LE(kFragHeadMax, u32(KAPI_RECV_HEAD_MAX));	// was 4096: a kmalloc-8k head
	EXPECT_EQ(RecvRing::sges_for(kFragHeadMax), 1u);
	EXPECT_EQ(RecvRing::sges_for(kFragHeadMax + 1), 2u);
	EXPECT_EQ(RecvRing::receive_mtu(kMaxRecvMtu, 17), kMaxRecvMtu);
	EXPECT_EQ(RecvRing::receive_mtu(kMaxRecvMtu, 16), kFragHeadMax + 15 * u32(KAPI_PAGE_SIZE));
	EXPECT_EQ(RecvRing::receive_mtu(kMaxRecvMtu, 30), kMaxRecvMtu);	// more SGEs than needed
	EXPECT_EQ(RecvRing::receive_mtu(kMaxRecvMtu, 4), kFragHeadMax + 3 * u32(KAPI_PAGE_SIZE));
	EXPECT_EQ(RecvRing::receive_mtu(kMaxRecvMtu, 1), kFragHeadMax);
	EXPECT_EQ(RecvRing::receive_mtu(kMaxRecvMtu, 0), 0u);
	EXPECT_EQ(RecvRing::receive_mtu(2000, 1), 2000u);
	// whatever the device offers, the result fits its SGEs and a ring takes it
	for (u32 m = 1; m <= 20; m++) {	// 17: all a WR takes
		const u32 mtu = RecvRing::receive_mtu(kMaxRecvMtu, m);
		EXPECT_LE(RecvRing::sges_for(mtu), m);
		RcCounters c;
		RecvRing r{nullptr, RecvQueue::RcQp, c.refs()};
		EXPECT_OK(r.alloc(2, mtu));
	}
	RcCounters c;
	RecvRing r{nullptr, RecvQueue::RcQp, c.refs()};
	EXPECT_EQ(r.alloc(2, 0), Status::Invalid);
	EXPECT_EQ(r.alloc(2, kFragHeadMax + kFragPages * u32(KAPI_PAGE_SIZE) + 1), Status::Invalid);
}

// The head (docs/connected.md §5): within the SGEs a kFragHeadMax head needs, the head
// is only what the pages leave over, at least kFragHeadMin (the headers); a 65524-byte buffer is a 256-byte head and 16 pages, not 3712 and 16 pages (3 KiB
// more per posted buffer: the kmalloc-1k skb against a page). Literal figures, then the rule
// for every size: the SGEs hold the buffer, no SGE is empty, no head is bigger than one page's
// skb allows or smaller than kFragHeadMin.
KTEST(rc_recv_ring, head_is_what_the_pages_leave)
{
	EXPECT_EQ(frag_head_len(kMaxRecvMtu), 256u);
	EXPECT_EQ(frag_head_len(kFragBufSize), 256u);	// 65536: 16 full pages and the minimum head
	EXPECT_EQ(frag_head_len(65152), 3712u);		// what 16 SGEs hold: 15 full pages + the largest head
	EXPECT_EQ(frag_head_len(65152 + 1), 256u);	// one more page
	EXPECT_EQ(frag_head_len(2000), 2000u);		// fits a head: one SGE, no page
	EXPECT_EQ(frag_head_len(kFragHeadMax), kFragHeadMax);
	EXPECT_EQ(frag_head_len(kFragHeadMax + 1), 256u);	// a head and one page of 3457
	EXPECT_EQ(frag_head_len(kFragHeadMax + KAPI_PAGE_SIZE), kFragHeadMax);	// two SGEs, the page full
	u32 bad = 0;
	for (u32 buf = 1; buf <= kFragHeadMax + kFragPages * u32(KAPI_PAGE_SIZE); buf += buf < 9000 ? 1 : 7) {
		const u32 head = frag_head_len(buf);
		const u32 pages = RecvRing::sges_for(buf) - 1;
		const bool ok = head <= kFragHeadMax && head >= (buf < kFragHeadMin ? buf : kFragHeadMin) &&
				(pages ? head + pages * u32(KAPI_PAGE_SIZE) >= buf &&
						 head + (pages - 1) * u32(KAPI_PAGE_SIZE) < buf	// the last page holds a byte
				       : head == buf);
		bad += !ok;
		if (!ok && bad < 4)
			EXPECT_EQ(buf, 0u);	// names the first sizes that break the rule
	}
	EXPECT_EQ(bad, 0u);
	// whatever the device offers: the ring's posted head is that rule's
	for (u32 m = 1; m <= 17; m++) {
		const u32 mtu = RecvRing::receive_mtu(kMaxRecvMtu, m);
		EXPECT_EQ(frag_head_len(mtu), m == 17 ? kFragHeadMin : kFragHeadMax);
	}
}

KTEST(rc_recv_ring, srq_posts_multi_sge_buffers)
{
	RcOn t(8, 8, true);
	ASSERT_TRUE(t.ok);
	EXPECT_EQ(t.r.posted(), 8u);
	EXPECT_EQ(t.rq().nposted_sg, 8);
	EXPECT_EQ(fake_rq_outstanding(&t.rq()), 8);
	EXPECT_LE(t.rq().max_chain, int(KAPI_RECV_SG_BATCH_MAX));
	for (int i = 0; i < 8; i++) {
		const kapi_recv_sg &p = t.rq().posted_sg[i];
		EXPECT_TRUE(wrid_kind(p.wr_id) == WrKind::RcRecv);
		EXPECT_EQ(wrid_slot(p.wr_id), u32(i));
		EXPECT_EQ(p.nsge, 17u);
		u32 sum = 0;
		for (u32 j = 0; j < p.nsge; j++)
			sum += p.len[j];
		EXPECT_EQ(sum, kMaxRecvMtu);
		EXPECT_EQ(p.len[0], kFragHeadMin);	// the head: what 16 pages leave over, at least 256
		for (u32 j = 1; j + 1 < p.nsge; j++)
			EXPECT_EQ(p.len[j], u32(KAPI_PAGE_SIZE));
		EXPECT_EQ(p.len[16], kMaxRecvMtu - kFragHeadMin - 15 * u32(KAPI_PAGE_SIZE));	// 3828
	}
	EXPECT_EQ(fake_skbs_live(), 8);
	EXPECT_EQ(fake_dma_live(), 8 * 17);
	t.r.release();
	EXPECT_EQ(fake_skbs_live(), 0);
	EXPECT_EQ(fake_dma_live(), 0);
}

KTEST(rc_recv_ring, replacement_first_keeps_unused_pages)
{
	RcOn t(4, 4);
	ASSERT_TRUE(t.ok);
	const kapi_recv_sg before = t.rq().posted_sg[0];
	const u32 len = kFragHeadMin + 5000;	// the head and two pages
	ASSERT_TRUE(t.consume(len));
	kapi_wc wc;
	ASSERT_EQ(kapi_cq_poll(t.cq, &wc, 1), 1);
	kapi_skb *skb = t.r.complete(wc);
	ASSERT_NOT_NULL(skb);
	EXPECT_EQ(t.r.posted(), 3u);	// the replacement is queued, not yet posted
	EXPECT_EQ(kapi_skb_len(skb), len);
	EXPECT_EQ(kapi_skb_nr_frags(skb), 2u);
	EXPECT_EQ(fake_skb_frag_len(skb, 1), 5000u - u32(KAPI_PAGE_SIZE));
	EXPECT_EQ(u64(reinterpret_cast<unsigned long>(kapi_skb_data(skb))), before.addr[0]);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 4u);
	const kapi_recv_sg &after = t.rq().posted_sg[4];
	EXPECT_EQ(wrid_slot(after.wr_id), 0u);
	EXPECT_NE(after.addr[0], before.addr[0]);	// a fresh head
	EXPECT_NE(after.addr[1], before.addr[1]);	// fresh pages for the two the packet took
	EXPECT_NE(after.addr[2], before.addr[2]);
	for (u32 j = 3; j < after.nsge; j++)		// the others stayed in the slot
		EXPECT_EQ(after.addr[j], before.addr[j]);
	kapi_skb_free(skb);
	EXPECT_EQ(fake_skbs_live(), 4);
	EXPECT_EQ(fake_dma_live(), 4 * 17);
}

// The never-zero invariant (docs/design.md §4 item 2): a random sequence of receives of random sizes,
// with allocation failing at random (all of it, or one allocation at random), growth asked
// for on every poll: after every poll what the HCA holds is exactly what the ring counts,
// and it is never lowered by a failure (only growth changes it, upwards).
KTEST(rc_recv_ring, never_zero_under_random_allocation_failure)
{
	RcOn t(16, 2);
	ASSERT_TRUE(t.ok);
	Rng rng{0x1b0bca7e};
	u32 active = t.r.active();
	int handed_up = 0;
	for (int step = 0; step < 400; step++) {
		const u32 k = 1 + rng.below(u32(fake_rq_outstanding(&t.rq())));
		for (u32 i = 0; i < k; i++)
			ASSERT_TRUE(t.consume(1 + rng.below(kMaxRecvMtu)));
		const u32 mode = rng.below(4);
		if (mode == 0)
			ktest_alloc_fail_all(1);
		else if (mode == 1)
			ktest_alloc_fail_nth(long(rng.below(20)));
		handed_up += t.poll(nullptr, true);
		ktest_alloc_fail_all(0);
		ktest_alloc_fail_nth(-1);
		EXPECT_GE(t.r.active(), active);	// growth only
		active = t.r.active();
		EXPECT_EQ(t.r.posted(), active);	// was lowered by a failure: the invariant broken
		EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), t.r.posted());
		EXPECT_GE(t.r.posted(), 1u);
		if (t.r.posted() != active)
			break;
	}
	EXPECT_GT(t.c.nomem, 0u);	// the failure path really ran
	EXPECT_GT(handed_up, 0);
	EXPECT_GT(t.c.grown, 0u);
	EXPECT_EQ(t.c.post_errors, 0u);
	EXPECT_EQ(long(fake_skbs_live()), long(t.r.active()));
}

// A non-SRQ QP in ERROR: its receives come back flushed (the first error may be another
// status), none is posted again, and empty() turns true exactly with the last one.
KTEST(rc_recv_ring, nonsrq_errors_are_not_reposted)
{
	RcOn t(8, 4);
	ASSERT_TRUE(t.ok);
	ASSERT_TRUE(t.consume(100));		// a packet, its replacement queued when polled
	ASSERT_TRUE(t.consume(0, 4));		// a local protection error: the QP goes to ERROR
	kapi_wc wc[2];
	ASSERT_EQ(kapi_cq_poll(t.cq, wc, 2), 2);
	kapi_skb *skb = t.r.complete(wc[0]);
	ASSERT_NOT_NULL(skb);
	kapi_skb_free(skb);
	EXPECT_NULL(t.r.complete(wc[1]));
	fake_qp_set_error(t.qp);		// the rest is flushed
	const int posts = t.rq().nposted;
	t.r.repost();				// the queued replacement stays the ring's
	EXPECT_EQ(t.rq().nposted, posts);
	EXPECT_EQ(t.r.queued(), 1u);
	EXPECT_EQ(t.r.posted(), 2u);
	int left = int(t.r.posted());
	while (kapi_cq_poll(t.cq, wc, 1) == 1) {
		EXPECT_FALSE(t.r.empty());
		EXPECT_NULL(t.r.complete(wc[0]));
		EXPECT_EQ(t.r.empty(), --left == 0);
	}
	EXPECT_EQ(left, 0);
	EXPECT_TRUE(t.r.empty());
	t.r.adapt(0);			// nothing grows on a dead queue
	t.r.repost();
	EXPECT_EQ(t.rq().nposted, posts);
	EXPECT_EQ(t.r.active(), 4u);
	EXPECT_EQ(t.c.wc_errors, 1u);
	EXPECT_EQ(t.c.flushed, 2u);
	EXPECT_EQ(fake_skbs_live(), 4);		// every buffer still in its slot until release()
}

// The SRQ outlives any one QP: a receive flushed by a QP's teardown, or failed, goes back.
KTEST(rc_recv_ring, srq_errors_are_reposted)
{
	RcOn t(4, 4, true);
	ASSERT_TRUE(t.ok);
	ASSERT_TRUE(t.consume(0, KAPI_WC_WR_FLUSH_ERR));
	ASSERT_TRUE(t.consume(0, 4));
	EXPECT_EQ(t.poll(), 0);
	EXPECT_EQ(t.c.flushed, 1u);
	EXPECT_EQ(t.c.wc_errors, 1u);
	EXPECT_EQ(t.r.posted(), 4u);
	EXPECT_EQ(t.rq().nposted, 6);
	EXPECT_EQ(wrid_slot(t.rq().posted_sg[4].wr_id), 0u);	// the same slots, again
	EXPECT_EQ(t.rq().posted_sg[4].addr[0], t.rq().posted_sg[0].addr[0]);
}

KTEST(rc_recv_ring, grow_if_low)
{
	RcOn t(8, 2);
	ASSERT_TRUE(t.ok);
	ASSERT_TRUE(t.consume(100));
	ASSERT_TRUE(t.consume(100));		// the queue ran dry between two polls
	EXPECT_EQ(t.poll(nullptr, true), 2);
	EXPECT_EQ(t.r.active(), 4u);
	EXPECT_EQ(t.r.posted(), 4u);
	EXPECT_EQ(t.c.grown, 2u);
	ASSERT_TRUE(t.consume(100));		// 3 of 4 left: not low
	t.poll(nullptr, true);
	EXPECT_EQ(t.r.active(), 4u);
	for (int i = 0; i < 4; i++)
		ASSERT_TRUE(t.consume(100));
	{
		kapi_wc wc[4];
		ASSERT_EQ(kapi_cq_poll(t.cq, wc, 4), 4);
		for (auto &w : wc)
			kapi_skb_free(t.r.complete(w));
		ktest::AllocFailAll fail;
		t.r.adapt(0);		// no memory: stays at 4, counted
	}
	EXPECT_EQ(t.c.grow_failed, 1u);
	EXPECT_EQ(t.r.active(), 4u);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 4u);
	for (int round = 0; round < 3; round++) {	// 4 -> 8, then capped at size()
		while (t.consume(100))
			;
		t.poll(nullptr, true);
	}
	EXPECT_EQ(t.r.active(), 8u);
	EXPECT_EQ(t.r.posted(), 8u);
	EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), 8u);
}

// Idle shrink (docs/connected.md §5): after kRcShrinkIdleMs without demand the target drops to
// what post_initial posted; nothing posted is cancelled, and the buffers completing from then
// on are handed up without replacement until the ring is back at its floor.
KTEST(rc_recv_ring, shrinks_after_idle_without_cancelling)
{
	RcOn t(16, 2);
	ASSERT_TRUE(t.ok);
	u64 now = 1000;
	ASSERT_TRUE(t.consume(100) && t.consume(100));
	EXPECT_EQ(t.poll(nullptr, true, now), 2);	// 2 -> 4
	for (int i = 0; i < 4; i++)
		ASSERT_TRUE(t.consume(100));
	EXPECT_EQ(t.poll(nullptr, true, now += 100), 4);	// 4 -> 8
	EXPECT_EQ(t.r.active(), 8u);
	EXPECT_EQ(t.r.grows(), 6u);
	t.poll(nullptr, true, now + kRcShrinkIdleMs - 1);	// not idle long enough
	EXPECT_EQ(t.r.goal(), 8u);
	t.poll(nullptr, true, now += kRcShrinkIdleMs);
	EXPECT_EQ(t.r.goal(), 2u);
	EXPECT_EQ(t.r.active(), 8u);		// nothing cancelled
	EXPECT_EQ(t.r.posted(), 8u);
	EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), 8u);
	for (u32 left = 7; left >= 2; left--) {	// one completion at a time: no demand
		ASSERT_TRUE(t.consume(1000));
		EXPECT_EQ(t.poll(nullptr, true, ++now), 1);	// handed up, not replaced
		EXPECT_EQ(t.r.active(), left);
		EXPECT_EQ(t.r.posted(), left);
	}
	EXPECT_EQ(t.c.shrunk, 6u);
	EXPECT_EQ(t.r.shrinks(), 6u);
	EXPECT_EQ(t.c.nomem, 0u);
	ASSERT_TRUE(t.consume(1000));		// at the floor: replaced again
	EXPECT_EQ(t.poll(nullptr, true, ++now), 1);
	EXPECT_EQ(t.r.active(), 2u);
	EXPECT_EQ(t.r.posted(), 2u);
	EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), 2u);
	EXPECT_EQ(t.c.shrunk, 6u);
	EXPECT_EQ(fake_skbs_live(), 2);		// the retired buffers' parts all freed or handed up
	EXPECT_EQ(fake_dma_live(), 2 * long(t.r.nsge()));
}

// A ring of one grows on a stream, not on sporadic traffic. A completion
// per second (ping's default), or windows more than kRcGrowGapMs apart, leave it at one
// buffer; kRcGrowStreak1 windows each within kRcGrowGapMs of the one before grow it, and the
// 3/4 rule then doubles it at every window a stream drains. Checks the whole rule: with
// kRcGrowStreak1 = 1, or without the gap test, it fails.
KTEST(rc_recv_ring, ring_of_one_grows_on_a_stream_only)
{
	RcOn t(32, 1);
	ASSERT_TRUE(t.ok);
	u64 now = 1000;
	for (int i = 0; i < 20; i++) {		// 20 pings, 1 s apart
		ASSERT_TRUE(t.consume(100));
		t.poll(nullptr, true, now += 1000);
	}
	for (int i = 0; i < 20; i++) {		// just over the gap apart
		ASSERT_TRUE(t.consume(100));
		t.poll(nullptr, true, now += kRcGrowGapMs + 1);
	}
	if (kRcGrowStreak1 == 1) {	// the first completion grows it (the rule in force)
		EXPECT_EQ(t.r.active(), 2u);
		return;
	}
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_EQ(t.c.grown, 0u);
	for (u32 i = 0; i < kRcGrowStreak1; i++) {	// a stream (after a pause): windows at the gap
		EXPECT_EQ(t.r.active(), 1u);
		ASSERT_TRUE(t.consume(100));
		t.poll(nullptr, true, now += i ? kRcGrowGapMs : 1000);
	}
	EXPECT_EQ(t.r.active(), 2u);
	EXPECT_EQ(t.c.grown, 1u);
	for (u32 want = 4; want <= 32; want *= 2) {	// each drained window doubles it
		const u32 n = t.r.posted();
		for (u32 i = 0; i < n; i++)
			ASSERT_TRUE(t.consume(100));
		t.poll(nullptr, true, now += 1);
		EXPECT_EQ(t.r.active(), want);
	}
	EXPECT_EQ(t.c.grown, 31u);
}

// Never below one, and no allocation on the way down: a ring of nonsrq_min_recv = 1 that grew
// shrinks back to exactly one buffer even with no memory at all, dropping nothing.
KTEST(rc_recv_ring, shrink_stops_at_one_and_needs_no_memory)
{
	RcOn t(8, 1);
	ASSERT_TRUE(t.ok);
	u64 now = 10;
	for (u32 i = 0; i < kRcGrowStreak1; i++) {	// a stream: 1 -> 2
		ASSERT_TRUE(t.consume(100));
		t.poll(nullptr, true, ++now);
	}
	EXPECT_EQ(t.r.active(), 2u);
	t.poll(nullptr, true, now + kRcShrinkIdleMs);
	EXPECT_EQ(t.r.goal(), 1u);
	u64 bytes = 0;
	{
		ktest::AllocFailAll fail;
		ASSERT_TRUE(t.consume(3000));	// retired: the copy fails (no memory), the buffer goes up
		EXPECT_EQ(t.poll(&bytes, false), 1);
	}
	EXPECT_EQ(bytes, 3000u);
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_EQ(t.r.posted(), 1u);
	EXPECT_EQ(t.c.nomem, 0u);
	ASSERT_TRUE(t.consume(3000));		// the last one is replaced, never retired
	EXPECT_EQ(t.poll(nullptr, false), 1);	// (no adapt: one of one consumed would grow it)
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_EQ(t.r.posted(), 1u);
	EXPECT_EQ(t.c.shrunk, 1u);
}

// A ring of nonsrq_min_recv = 1 that a stream grew to 4 buffers.
struct Grown4 : RcOn {
	u64 now = 1000;
	bool grown = false;
	explicit Grown4(u32 slots) : RcOn(slots, 1) { grown = ok && ramp(4, now); }
};

// A ring of nonsrq_min_recv = 1 that grew settles at exactly one buffer once idle, and stays
// there under sporadic traffic. If the completion that retired the second-to-last buffer
// counted as demand for the ring of one it left (adapt() runs after complete(): one of one
// consumed is "low"), it would grow back to 2 in the same pass and an idle connection that
// was ever busy would keep two buffers per end.
KTEST(rc_recv_ring, grown_ring_settles_at_its_floor_after_idle)
{
	Grown4 t(32);
	ASSERT_TRUE(t.grown);
	u64 &now = t.now;
	const u64 grown = t.c.grown;
	now += kRcShrinkIdleMs;
	// After the silence, 4 messages 4 ms apart: the first is replaced (the goal drops to
	// 1), then each retires one; none is dropped.
	EXPECT_EQ(t.spaced(4, 4, now), 4);
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_EQ(t.c.shrunk, 3u);
	// The retiring windows were no demand, so no run was started: fewer than
	// kRcGrowStreak1 more windows within the gap leave it at one (planted: counting the
	// retiring completion against the ring of one it leaves grew it here).
	EXPECT_EQ(t.spaced(kRcGrowStreak1 - 1, 4, now), int(kRcGrowStreak1 - 1));
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_EQ(t.spaced(20, 1000, now), 20);	// then a ping a second: stays at one
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_EQ(t.r.goal(), 1u);
	EXPECT_EQ(t.r.posted(), 1u);
	EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), 1u);
	EXPECT_EQ(t.c.shrunk, 3u);
	EXPECT_EQ(t.c.grown, grown);		// no growth after the silence
	EXPECT_EQ(t.c.nomem, 0u);
}

// The guarantee at its narrowest (a ring of one): when a non-SRQ QP's last posted receive completes, complete() posts its
// buffer again before it returns the skb to hand up, not at the end of the NAPI batch, so
// the QP holds a receive while the packet is up the stack and the count never reads 0.
// Reposted at the end of the batch instead, the ring of one would have 0 posted on the QP
// and in its count until rx_batch()'s repost. Also through a copybreak, a full take and a failed replacement.
KTEST(rc_recv_ring, last_receive_reposted_before_its_packet_goes_up)
{
	RcOn t(32, 1);
	ASSERT_TRUE(t.ok);
	static const u32 lens[] = {100u, 3000u, 60000u};
	for (u32 len : lens) {
		kapi_wc wc{};
		ASSERT_TRUE(t.next_wc(wc, len));
		kapi_skb *skb = t.r.complete(wc);
		ASSERT_TRUE(skb != nullptr);
		EXPECT_EQ(t.r.posted(), 1u);
		EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), 1u);
		kapi_skb_free(skb);
	}
	kapi_wc wc{};
	ASSERT_TRUE(t.next_wc(wc, 60000));
	ktest_alloc_fail_all(1);	// no replacement: dropped, the same buffer back
	EXPECT_TRUE(t.r.complete(wc) == nullptr);
	ktest_alloc_fail_all(0);
	EXPECT_EQ(t.r.posted(), 1u);
	EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), 1u);
	EXPECT_EQ(t.c.nomem, 1u);
}

// A grown ring whose stream resumes after the idle shrink period
// keeps what the stream uses. Its goal drops to the floor at the first completion after the
// silence and each completion then retires a buffer; a window of c completions must stop the
// shrink near 4c/3, as the 3/4 rule does for any ring. Measured against the buffers the window
// started with, the shrink would go on until the ring had about c/3 left (2 for every c from
// 4 to 16) and the stream would meet an empty queue (RNR NAKs).
KTEST(rc_recv_ring, a_stream_resuming_after_idle_keeps_its_ring)
{
	static const u32 rates[] = {4u, 8u, 16u};
	for (u32 c : rates) {
		Grown4 t(32);
		ASSERT_TRUE(t.grown);
		u64 &now = t.now;
		ASSERT_TRUE(t.ramp(32, now));
		now += kRcShrinkIdleMs;
		ASSERT_TRUE(t.consume(100));
		t.poll(nullptr, true, now += 1);	// the first completion after the silence: goal 1
		ASSERT_EQ(t.r.goal(), 1u);
		u32 least = t.r.active(), unposted = 0;
		for (int w = 0; w < 40; w++) {	// c messages a millisecond, 40 ms
			u32 k = 0;
			for (; k < c && fake_rq_outstanding(&t.rq()); k++)
				ASSERT_TRUE(t.consume(100));
			unposted += c - k;	// each would have met an RNR NAK
			t.poll(nullptr, true, now += 1);
			least = t.r.active() < least ? t.r.active() : least;
		}
		EXPECT_EQ(unposted, 0u);
		EXPECT_GE(least, c);
		EXPECT_GE(t.r.posted(), 1u);
	}
}

// A window in which the ring retired buffers is measured against the buffers it had at its
// start: a burst that drains a shrinking ring is still demand (the retired ones included).
KTEST(rc_recv_ring, a_shrinking_ring_drained_is_still_demand)
{
	Grown4 t(16);
	ASSERT_TRUE(t.grown);
	u64 &now = t.now;
	ASSERT_TRUE(t.consume(100));
	t.poll(nullptr, true, now += kRcShrinkIdleMs);	// idle: the goal drops to 1
	ASSERT_EQ(t.r.goal(), 1u);
	for (int i = 0; i < 4; i++)		// all 4 at once: 3 retired, the last replaced
		ASSERT_TRUE(t.consume(100));
	t.poll(nullptr, true, now += 1);
	EXPECT_EQ(t.c.shrunk, 3u);
	EXPECT_EQ(t.r.active(), 2u);		// 4 of the 4 it had consumed: grows 1 -> 2
	EXPECT_EQ(t.r.goal(), 2u);
}

// A setup burst: the packets a peer held while the connection was set up arrive back to
// back (each one RNR delay after the last), fewer than kRcGrowStreak1 of them. They leave a
// ring of one at one buffer (the bench's idle connection: one ping, or two or three when
// setup outlasts ping's interval); a stream's ramp pays kRcGrowStreak1 - 1 more windows.
KTEST(rc_recv_ring, a_setup_burst_leaves_a_ring_of_one)
{
	RcOn t(32, 1);
	ASSERT_TRUE(t.ok);
	u64 now = 1000;
	for (int burst = 0; burst < 5; burst++, now += 2000)	// bursts of two, seconds apart
		EXPECT_EQ(t.spaced(2, 4, now), 2);
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_EQ(t.c.grown, 0u);
	EXPECT_GE(kRcGrowStreak1, 3u);		// a burst of two is below the rule's run
}

// The peer sends into a ring with this end's cm_rnr_retry; when that is finite a
// message that meets too many RNR NAKs kills the connection, so a ring of one grows at its
// first low window, not the kRcGrowStreak1-th. One completion is enough.
KTEST(rc_recv_ring, finite_rnr_retry_grows_a_ring_of_one_at_once)
{
	for (int finite = 0; finite < 2; finite++) {
		RcOn t(32, 0);	// nothing posted yet: the knob comes before post_initial(), as in create_qp
		ASSERT_TRUE(t.ok);
		t.r.rnr_retry_finite(finite);
		ASSERT_TRUE(kstd::ok(t.r.post_initial(1)));
		u64 now = 1000;
		ASSERT_TRUE(t.consume(100));
		t.poll(nullptr, true, now += 1);
		EXPECT_EQ(t.r.active(), finite ? 2u : 1u);
		EXPECT_EQ(t.c.grown, finite ? 1u : 0u);
	}
}

// A stream's start at c messages a millisecond: the windows in which some message finds the
// queue empty (each such message meets an RNR NAK and spends one of a finite retry count).
// With finite retry only the doubling's log2(c) windows (sizes 1, 2, .., c/2); with infinite
// retry kRcGrowStreak1 - 1 more at the ring of one (the L7 cost, where a NAK costs only time).
static u32 exposed_windows(bool finite, u32 c, u32 &msgs)
{
	RcOn t(32, 0);
	if (!t.ok)
		return ~0u;
	t.r.rnr_retry_finite(finite);
	if (!kstd::ok(t.r.post_initial(1)))
		return ~0u;
	u64 now = 1000;
	u32 windows = 0;
	msgs = 0;
	for (int w = 0; w < 20; w++) {
		u32 k = 0;
		for (; k < c && fake_rq_outstanding(&t.rq()); k++)
			if (!t.consume(100))
				return ~0u;
		if (k < c) {
			windows++;
			msgs += c - k;
		}
		t.poll(nullptr, true, now += 1);
	}
	return windows;
}

KTEST(rc_recv_ring, finite_rnr_retry_shortens_the_exposed_start)
{
	static const u32 rates[] = {4u, 8u, 16u};
	for (u32 c : rates) {
		u32 log2c = 0;
		while ((1u << log2c) < c)
			log2c++;
		u32 fm = 0, im = 0;
		const u32 fw = exposed_windows(true, c, fm), iw = exposed_windows(false, c, im);
		EXPECT_EQ(fw, log2c);
		EXPECT_EQ(iw, log2c + kRcGrowStreak1 - 1);
		EXPECT_LT(fm, im);
	}
}

// Demand during a pending shrink calls it off: the buffers still there are kept, and the
// ring grows again from where it is.
KTEST(rc_recv_ring, demand_calls_off_a_pending_shrink)
{
	RcOn t(16, 2);
	ASSERT_TRUE(t.ok);
	ASSERT_TRUE(t.consume(100) && t.consume(100));
	t.poll(nullptr, true, 1);		// 2 -> 4
	t.poll(nullptr, true, 1 + kRcShrinkIdleMs);
	EXPECT_EQ(t.r.goal(), 2u);
	ASSERT_TRUE(t.consume(100));		// retired: 3 left
	t.poll(nullptr, false);
	EXPECT_EQ(t.r.active(), 3u);
	for (int i = 0; i < 3; i++)		// a burst drains them all
		ASSERT_TRUE(t.consume(100));
	kapi_wc wc[3];
	ASSERT_EQ(kapi_cq_poll(t.cq, wc, 3), 3);
	kapi_skb_free(t.r.complete(wc[0]));	// retired: 2 left (the target)
	kapi_skb_free(t.r.complete(wc[1]));	// replaced
	kapi_skb_free(t.r.complete(wc[2]));
	t.r.adapt(2 + kRcShrinkIdleMs);		// 3 of 2 consumed: low, grows 2 -> 4
	t.r.repost();
	EXPECT_EQ(t.r.active(), 4u);
	EXPECT_EQ(t.r.goal(), 4u);
	EXPECT_EQ(t.r.posted(), 4u);
}

KTEST(rc_recv_ring, srq_does_not_grow)
{
	RcOn t(8, 2, true);
	ASSERT_TRUE(t.ok);
	while (t.consume(100))
		;
	t.poll(nullptr, true);
	EXPECT_EQ(t.r.active(), 2u);
	EXPECT_EQ(t.c.grown, 0u);
}

KTEST(rc_recv_ring, post_initial_fails_whole)
{
	RcCounters c;
	kapi_qp_init init{};
	init.recv_sge = RecvRing::sges_for(kMaxRecvMtu);	// the buffers' SGEs are legal: only memory fails
	kapi_qp *qp = kapi_rc_qp_create(nullptr, nullptr, nullptr, &init);
	ASSERT_NOT_NULL(qp);
	{
		RecvRing r{nullptr, RecvQueue::RcQp, c.refs()};
		ASSERT_OK(r.alloc(8, kMaxRecvMtu));
		r.bind(nullptr, RecvTarget{qp, nullptr}, 0);
		ktest_alloc_fail_nth(20);	// part-way through the third buffer
		EXPECT_EQ(r.post_initial(4), Status::NoMem);
		ktest_alloc_fail_nth(-1);
		EXPECT_EQ(c.nomem, 1u);
		EXPECT_EQ(r.post_initial(9), Status::Invalid);	// more than the ring holds
		fake_qp_rq(qp)->fail_next_post = 1;
		RecvRing r2{nullptr, RecvQueue::RcQp, c.refs()};
		ASSERT_OK(r2.alloc(4, kMaxRecvMtu));
		r2.bind(nullptr, RecvTarget{qp, nullptr}, 0);
		EXPECT_EQ(r2.post_initial(2), Status::Io);	// the provider refused: not all posted
		EXPECT_EQ(c.post_errors, 1u);
	}
	kapi_qp_destroy(qp);
	EXPECT_EQ(fake_skbs_live(), 0);
	EXPECT_EQ(fake_dma_live(), 0);
}

// Sustained load on a 256-slot ring: every poll finds the whole queue consumed. It grows to
// size(), by at most kPollBatch buffers per call (bounded GFP_ATOMIC work in NAPI). A demand
// signal of "fewest posted" would be kept up by the in-batch reposts and stop growth at 32.
KTEST(rc_recv_ring, grows_to_size_under_sustained_load)
{
	RcOn t(256, 4);
	ASSERT_TRUE(t.ok);
	u32 before = t.r.active();
	for (int round = 0; round < 40 && t.r.active() < 256; round++) {
		while (t.consume(100))
			;
		t.poll(nullptr, true);
		EXPECT_LE(t.r.active() - before, kPollBatch);
		EXPECT_GT(t.r.active(), before);
		before = t.r.active();
		EXPECT_EQ(t.r.posted(), t.r.active());
	}
	EXPECT_EQ(t.r.active(), 256u);
	EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), 256u);
	EXPECT_EQ(t.c.grown, 252u);
}

// The signal is 3/4 of the active buffers consumed in one window: 3 of 4 grows a small
// ring; a trickle (one completion per poll) never grows a large one.
KTEST(rc_recv_ring, grows_on_three_quarters_consumed_only)
{
	RcOn t(256, 4);
	ASSERT_TRUE(t.ok);
	for (int i = 0; i < 2; i++)
		ASSERT_TRUE(t.consume(100));
	t.poll(nullptr, true);
	EXPECT_EQ(t.r.active(), 4u);		// half: not low
	for (int i = 0; i < 3; i++)
		ASSERT_TRUE(t.consume(100));
	t.poll(nullptr, true);
	EXPECT_EQ(t.r.active(), 8u);		// was 4: needed the queue run completely dry
	RcOn u(256, 64);
	ASSERT_TRUE(u.ok);
	for (int i = 0; i < 100; i++) {
		ASSERT_TRUE(u.consume(100));
		u.poll(nullptr, true);
	}
	EXPECT_EQ(u.r.active(), 64u);
	EXPECT_EQ(u.c.grown, 0u);
	for (int i = 0; i < 48; i++)		// 3/4 of 64 in one window
		ASSERT_TRUE(u.consume(100));
	u.poll(nullptr, true);
	EXPECT_EQ(u.r.active(), 64u + kPollBatch);	// bounded: not 128 at once
}

// A duplicate completion of a slot that is queued (not posted): refused, warned once,
// counted, never handed up, and the buffer is posted once only.
KTEST(rc_recv_ring, duplicate_completion_of_a_queued_slot_is_refused)
{
	RcOn t(8, 2);
	ASSERT_TRUE(t.ok);
	kapi_wc wc;
	ASSERT_TRUE(t.next_wc(wc, 100));
	kapi_skb *a = t.r.complete(wc);
	ASSERT_NOT_NULL(a);
	kapi_skb_free(a);
	ktest_warn_catch_begin();
	EXPECT_NULL(t.r.complete(wc));		// slot 0 is queued, not posted
	EXPECT_NULL(t.r.complete(wc));
	EXPECT_EQ(ktest_warn_catch_end(), 1);	// once
	EXPECT_EQ(t.r.refused(), 2u);
	EXPECT_EQ(t.r.queued(), 1u);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 2u);
	EXPECT_EQ(fake_rq_outstanding(&t.rq()), 2);
	EXPECT_EQ(t.rq().nposted_sg, 3);
	// and of a slot that is posted again: the second completion of it is the HCA's only
	ASSERT_TRUE(t.next_wc(wc, 100));
	kapi_skb *b = t.r.complete(wc);
	ASSERT_NOT_NULL(b);
	kapi_skb_free(b);
	ktest_warn_catch_begin();
	EXPECT_NULL(t.r.complete(wc));
	EXPECT_EQ(ktest_warn_catch_end(), 0);	// warned already
	EXPECT_EQ(t.r.refused(), 3u);
	EXPECT_EQ(t.r.posted(), 1u);
}

// byte_len over buf_size (yet within head + pages): refused, counted, the buffer reposted.
// The fake HCA itself turns a message longer than the SGEs into LOC_LEN_ERR.
KTEST(rc_recv_ring, byte_len_over_buf_size_is_refused)
{
	RcOn t(4, 4);
	ASSERT_TRUE(t.ok);
	kapi_wc wc;
	ASSERT_TRUE(t.next_wc(wc, 100));
	wc.byte_len = kMaxRecvMtu + 12;		// fits head + 16 pages, not the 65524 bytes posted
	ktest_warn_catch_begin();
	EXPECT_NULL(t.r.complete(wc));
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	EXPECT_EQ(t.r.refused(), 1u);
	EXPECT_EQ(t.r.queued(), 1u);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 4u);
	EXPECT_EQ(fake_rq_outstanding(&t.rq()), 4);
	ASSERT_TRUE(t.consume(kMaxRecvMtu + 1));	// the fake: LOC_LEN_ERR
	EXPECT_EQ(t.poll(), 0);
	EXPECT_EQ(t.rq().len_errors, 1);
	EXPECT_EQ(t.c.wc_errors, 1u);
	EXPECT_TRUE(t.r.stopped());		// a non-SRQ QP goes to ERROR on it
}

// The fake checks a post's SGEs against the queue's max_sge: an SRQ of 4 SGEs refuses
// 16-SGE receives, so post_initial fails (the caller must size buffers by receive_mtu()).
KTEST(rc_recv_ring, more_sges_than_the_queue_has_are_refused)
{
	RcCounters c;
	kapi_srq *srq = kapi_srq_create(nullptr, 4, 4, 0, nullptr);
	ASSERT_NOT_NULL(srq);
	{
		RecvRing r{nullptr, RecvQueue::Srq, c.refs()};
		ASSERT_OK(r.alloc(4, kMaxRecvMtu));
		r.bind(nullptr, RecvTarget{nullptr, srq}, 0);
		EXPECT_EQ(r.post_initial(2), Status::Io);
		EXPECT_EQ(c.post_errors, 1u);
		RecvRing s{nullptr, RecvQueue::Srq, c.refs()};
		ASSERT_OK(s.alloc(4, RecvRing::receive_mtu(kMaxRecvMtu, 4)));
		s.bind(nullptr, RecvTarget{nullptr, srq}, 0);
		EXPECT_OK(s.post_initial(2));
	}
	kapi_srq_destroy(srq);
}

// A refused post on a live non-SRQ ring leaves nothing posted: that is needs_retry(), not
// empty() (only a stopped ring is empty); the owner's retry posts it. After stop() nothing
// is posted again and empty() is the fence's RxEmpty.
KTEST(rc_recv_ring, refused_post_is_retried_by_the_owner_and_stop_fences)
{
	RcOn t(8, 1);
	ASSERT_TRUE(t.ok);
	EXPECT_FALSE(t.r.needs_retry());
	EXPECT_FALSE(t.r.empty());
	ASSERT_TRUE(t.consume(100));
	t.rq().fail_next_post = 2;	// complete()'s repost of the last receive, then the batch's
	EXPECT_EQ(t.poll(nullptr, true), 1);
	EXPECT_EQ(t.r.posted(), 0u);
	EXPECT_EQ(fake_rq_outstanding(&t.rq()), 0);
	EXPECT_TRUE(t.r.needs_retry());
	EXPECT_FALSE(t.r.empty());		// was true: read as RxEmpty on a live QP
	EXPECT_EQ(t.c.post_errors, 2u);	// both refusals counted
	t.r.repost();				// the owner's retry (its timer schedules NAPI)
	EXPECT_FALSE(t.r.needs_retry());
	EXPECT_EQ(t.r.posted(), t.r.active());
	EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), t.r.posted());
	// QpToErr: stop first, then the flushes; a queued replacement is never posted
	kapi_wc wc;
	ASSERT_TRUE(t.next_wc(wc, 100));
	t.r.stop();
	kapi_skb *skb = t.r.complete(wc);	// a packet that made it before the error
	ASSERT_NOT_NULL(skb);
	kapi_skb_free(skb);
	const int posts = t.rq().nposted;
	t.r.repost();
	t.r.adapt(0);
	EXPECT_EQ(t.rq().nposted, posts);
	EXPECT_FALSE(t.r.needs_retry());
	EXPECT_EQ(t.r.post_initial(t.r.active()), Status::Invalid);
	fake_qp_set_error(t.qp);
	EXPECT_EQ(t.r.empty(), t.r.posted() == 0);
	t.poll();
	EXPECT_TRUE(t.r.empty());
	EXPECT_EQ(t.rq().nposted, posts);
}

// The loss counter (ethtool rc_rx_left_empty): a poll whose reposts leave a live non-SRQ QP
// with nothing posted counts once per such poll; the transient gap inside complete() (a
// ring of one between its completion and its repost), a drained-and-reposted ring, a
// stopped ring and the SRQ never count.
KTEST(rc_recv_ring, left_empty_counts_a_live_qp_left_with_nothing_posted)
{
	EXPECT_TRUE(rc_left_empty(RecvQueue::RcQp, false, 0));
	EXPECT_FALSE(rc_left_empty(RecvQueue::RcQp, true, 0));
	EXPECT_FALSE(rc_left_empty(RecvQueue::RcQp, false, 1));
	EXPECT_FALSE(rc_left_empty(RecvQueue::Srq, false, 0));
	EXPECT_FALSE(rc_left_empty(RecvQueue::Ud, false, 0));
	RcOn t(8, 1);
	ASSERT_TRUE(t.ok);
	for (int i = 0; i < 20; i++) {	// a ring of one, every receive reposted: never counted
		ASSERT_TRUE(t.consume(100));
		EXPECT_EQ(t.poll(), 1);
		EXPECT_EQ(t.r.posted(), 1u);
	}
	EXPECT_EQ(t.c.left_empty, 0u);
	ASSERT_TRUE(t.consume(100));
	t.rq().fail_next_post = 2;	// complete()'s repost and the batch's both refused
	EXPECT_EQ(t.poll(), 1);
	EXPECT_EQ(t.r.posted(), 0u);
	EXPECT_EQ(t.c.left_empty, 1u);	// the batch's repost left it empty: counted once
	t.rq().fail_next_post = 1;
	t.r.repost();			// the owner's retry refused again: still empty, counted
	EXPECT_EQ(t.c.left_empty, 2u);
	t.r.repost();			// the retry that works
	EXPECT_EQ(t.r.posted(), 1u);
	EXPECT_EQ(t.c.left_empty, 2u);
	ASSERT_TRUE(t.consume(100));
	t.rq().fail_next_post = 1;	// only complete()'s repost refused: the batch's posts it
	EXPECT_EQ(t.poll(), 1);
	EXPECT_EQ(t.r.posted(), 1u);
	EXPECT_EQ(t.c.left_empty, 2u);
	kapi_wc wc;			// a stopped ring (QpToErr) is empty by design: not counted
	ASSERT_TRUE(t.next_wc(wc, 100));
	t.r.stop();
	kapi_skb *skb = t.r.complete(wc);
	ASSERT_NOT_NULL(skb);
	kapi_skb_free(skb);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 0u);
	EXPECT_EQ(t.c.left_empty, 2u);
}

// The never-zero rule with refused posts and error completions too (SRQ: errors are
// reposted). After every poll the ring and the HCA agree; posted + queued is every active
// buffer; when a refusal left nothing posted the owner retries, and after the owner's
// retry (no refusal then) everything is posted again.
KTEST(rc_recv_ring, never_zero_with_refused_posts_and_errors)
{
	RcOn t(16, 16, true);
	ASSERT_TRUE(t.ok);
	Rng rng{0x5eed1234};
	int handed_up = 0, retries = 0;
	for (int step = 0; step < 400; step++) {
		const u32 k = 1 + rng.below(u32(fake_rq_outstanding(&t.rq())));
		for (u32 i = 0; i < k; i++) {
			const u32 e = rng.below(8);
			ASSERT_TRUE(t.consume(1 + rng.below(kMaxRecvMtu), e == 0 ? KAPI_WC_WR_FLUSH_ERR : e == 1 ? 4 : 0));
		}
		const u32 mode = rng.below(6);
		if (mode == 0)
			ktest_alloc_fail_all(1);
		else if (mode == 1)
			ktest_alloc_fail_nth(long(rng.below(20)));
		else if (mode == 2)
			t.rq().fail_next_post = 1;
		else if (mode == 3)
			t.rq().partial_next = int(1 + rng.below(3));
		handed_up += t.poll(nullptr, true);
		ktest_alloc_fail_all(0);
		ktest_alloc_fail_nth(-1);
		t.rq().fail_next_post = 0;
		t.rq().partial_next = 0;
		EXPECT_EQ(t.r.active(), 16u);
		EXPECT_EQ(u32(fake_rq_outstanding(&t.rq())), t.r.posted());
		EXPECT_EQ(t.r.posted() + t.r.queued(), t.r.active());
		EXPECT_FALSE(t.r.empty());
		if (t.r.needs_retry())
			retries++;
		t.r.repost();		// the owner's next pass
		EXPECT_EQ(t.r.posted(), t.r.active());
		if (t.r.posted() != t.r.active())
			break;
	}
	EXPECT_GT(t.c.nomem, 0u);
	EXPECT_GT(t.c.post_errors, 0u);
	EXPECT_GT(t.c.flushed, 0u);
	EXPECT_GT(t.c.wc_errors, 0u);
	EXPECT_GT(handed_up, 0);
	EXPECT_EQ(t.r.refused(), 0u);
	(void)retries;
}

// Copybreak: a packet of at most kRcCopybreak bytes goes up as a copy of its size (each part
// synced for the CPU, then back to the device), from the head and, past its 256 bytes, the
// pages it reached (up to kFragHeadMax = 3712 bytes), and the same
// buffer is reposted; one byte more takes the head and pages. No skb for the copy: falls
// back to the replacement path, nothing lost.
KTEST(rc_recv_ring, copybreak_copies_small_packets_and_reposts_the_buffer)
{
	RcOn t(4, 4);
	ASSERT_TRUE(t.ok);
	const kapi_recv_sg first = t.rq().posted_sg[0];
	// what the HCA wrote: byte i of the packet, over the head and then the pages
	auto at = [&](const kapi_recv_sg &p, u32 i) {
		u32 j = 0;
		while (i >= p.len[j])
			i -= p.len[j++];
		return reinterpret_cast<u8 *>(static_cast<unsigned long>(p.addr[j])) + i;
	};
	for (u32 i = 0; i < kRcCopybreak; i++)
		*at(first, i) = u8(i * 7 + 1);
	EXPECT_EQ(first.len[0], 256u);
	const long cpu = fake_dma_syncs_cpu(), dev = fake_dma_syncs_dev();
	kapi_wc wc;
	ASSERT_TRUE(t.next_wc(wc, kRcCopybreak));
	kapi_skb *skb = t.r.complete(wc);
	ASSERT_NOT_NULL(skb);
	EXPECT_EQ(kapi_skb_len(skb), kRcCopybreak);
	EXPECT_EQ(kapi_skb_nr_frags(skb), 0u);
	EXPECT_NE(u64(reinterpret_cast<unsigned long>(kapi_skb_data(skb))), first.addr[0]);
	u32 same = 0;
	for (u32 i = 0; i < kRcCopybreak; i++)
		same += kapi_skb_data(skb)[i] == u8(i * 7 + 1);
	EXPECT_EQ(same, kRcCopybreak);
	EXPECT_EQ(fake_dma_syncs_cpu(), cpu + 2);	// the head and the one page it reached
	EXPECT_EQ(fake_dma_syncs_dev(), dev + 2);
	EXPECT_EQ(t.r.copied(), 1u);
	kapi_skb_free(skb);
	t.r.repost();
	const kapi_recv_sg again = t.rq().posted_sg[4];
	EXPECT_EQ(wrid_slot(again.wr_id), 0u);
	for (u32 j = 0; j < again.nsge; j++)		// the very same buffer
		EXPECT_EQ(again.addr[j], first.addr[j]);
	ASSERT_TRUE(t.next_wc(wc, 100));		// slot 1: the head alone, a small skb
	skb = t.r.complete(wc);
	ASSERT_NOT_NULL(skb);
	EXPECT_EQ(kapi_skb_len(skb), 100u);
	EXPECT_LT(fake_skb_truesize(skb), 1024u);
	EXPECT_EQ(fake_dma_syncs_cpu(), cpu + 3);
	EXPECT_EQ(t.r.copied(), 2u);
	kapi_skb_free(skb);
	t.r.repost();
	for (u32 j = 0; j < t.rq().posted_sg[5].nsge; j++)
		EXPECT_EQ(t.rq().posted_sg[5].addr[j], t.rq().posted_sg[1].addr[j]);
	ASSERT_TRUE(t.next_wc(wc, kRcCopybreak + 1));	// slot 2: over the copybreak, the head and pages go up
	skb = t.r.complete(wc);
	ASSERT_NOT_NULL(skb);
	EXPECT_EQ(u64(reinterpret_cast<unsigned long>(kapi_skb_data(skb))), t.rq().posted_sg[2].addr[0]);
	EXPECT_EQ(kapi_skb_nr_frags(skb), 1u);	// 256 in the head, 3457 in a page
	kapi_skb_free(skb);
	ASSERT_TRUE(t.next_wc(wc, 60));			// slot 3, no memory for the copy
	ktest_alloc_fail_nth(0);
	skb = t.r.complete(wc);
	ktest_alloc_fail_nth(-1);
	ASSERT_NOT_NULL(skb);
	EXPECT_EQ(u64(reinterpret_cast<unsigned long>(kapi_skb_data(skb))), t.rq().posted_sg[3].addr[0]);
	EXPECT_EQ(kapi_skb_len(skb), 60u);
	kapi_skb_free(skb);
	EXPECT_EQ(t.r.copied(), 2u);
	t.r.repost();
	EXPECT_EQ(t.r.posted(), 4u);
	EXPECT_EQ(fake_skbs_live(), 4);
	EXPECT_EQ(fake_dma_live(), 4 * 17);
}

// Nothing posted at stop() (a refused post): empty() at once, with no completion to come.
KTEST(rc_recv_ring, stop_with_nothing_posted_is_empty_at_once)
{
	RcOn t(8, 1);
	ASSERT_TRUE(t.ok);
	ASSERT_TRUE(t.consume(100));
	t.rq().fail_next_post = 2;	// complete()'s repost of the last receive, then the batch's
	EXPECT_EQ(t.poll(), 1);
	EXPECT_TRUE(t.r.needs_retry());
	EXPECT_FALSE(t.r.empty());
	t.r.stop();
	EXPECT_TRUE(t.r.empty());
	EXPECT_FALSE(t.r.needs_retry());
	EXPECT_EQ(fake_cq_pending(t.cq), 0);
}

KTEST(rc_recv_ring, a_completion_it_never_posted_is_refused)
{
	RcOn t(8, 2);
	ASSERT_TRUE(t.ok);
	ktest_warn_catch_begin();
	EXPECT_NULL(t.r.complete(wc_of(t.conn.ctx(), wrid(WrKind::RcRecv, 5), KAPI_WC_SUCCESS, 1)));
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	EXPECT_EQ(t.r.posted(), 2u);
}

// ---- rc_dispatch ----
// One CQ carrying everything connected mode puts on it, with is_recv lying in every entry
// (its opcode is undefined in error completions): the kind in wr_id alone routes them.
KTEST(rc_dispatch, by_kind_not_by_opcode)
{
	UdQp ud(g_log);
	Conn a, b;
	a.id = 1;
	b.id = 2;
	kapi_cq *cq = fake_cq_new();
	ASSERT_NOT_NULL(cq);
	const u32 st[] = {KAPI_WC_SUCCESS, KAPI_WC_WR_FLUSH_ERR, 12 /* retry exceeded */};
	for (u32 i = 0; i < 30; i++) {
		const u32 s = st[i % 3];
		kapi_wc w[] = {
			wc_of(ud.ctx(), wrid(WrKind::UdRecv, i), s, 0),
			wc_of(ud.ctx(), wrid(WrKind::UdSend, i), s, 1),
			wc_of((i % 2 ? a : b).ctx(), wrid(WrKind::RcRecv, i), s, 0),
			wc_of((i % 2 ? a : b).ctx(), wrid(WrKind::RcSend, i), s, 1),
			wc_of(a.ctx(), wrid(WrKind::Drain, i), s, 1),
		};
		for (auto &x : w)
			fake_cq_push(cq, &x);
	}
	int ud_recv = 0, ud_send = 0, rc_recv_a = 0, rc_recv_b = 0, rc_send = 0, drain = 0, wrong = 0;
	u32 batched = 0;
	u64 foreign = 0;
	const int n = dispatch_cq(
		cq, 1000, foreign,
		[&](UdQp &qp, const kapi_wc &wc) {
			wrong += &qp != &ud;
			switch (wrid_kind(wc.wr_id)) {
			case WrKind::UdRecv: ud_recv++; break;
			case WrKind::UdSend: ud_send++; break;
			default: wrong++;
			}
			return true;
		},
		[&](RcQp &qp, const kapi_wc &wc) {
			Conn &c = static_cast<Conn &>(qp);
			switch (wrid_kind(wc.wr_id)) {
			case WrKind::RcRecv:
				(c.id == 1 ? rc_recv_a : rc_recv_b)++;
				wrong += c.id != (wrid_slot(wc.wr_id) % 2 ? 1 : 2);
				break;
			case WrKind::RcSend: rc_send++; break;
			case WrKind::Drain: drain++; wrong += c.id != 1; break;
			default: wrong++;
			}
			return true;
		},
		[&](u32 k) { batched += k; });
	EXPECT_EQ(n, 150);
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(ud_recv, 30);
	EXPECT_EQ(ud_send, 30);
	EXPECT_EQ(rc_recv_a, 15);
	EXPECT_EQ(rc_recv_b, 15);
	EXPECT_EQ(rc_send, 30);
	EXPECT_EQ(drain, 30);
	EXPECT_EQ(batched, 30u);	// the UD send ring's tail moves by its own completions only
	EXPECT_EQ(foreign, 0u);
	fake_cq_free(cq);
}

// Completions that must reach nobody: a kind the context's type does not serve, an id the
// core never gave out, a destroyed connection (canary cleared), a context that is no QP, no
// context, and one its owner refuses. Each counted, none dispatched.
KTEST(rc_dispatch, foreign_contexts_are_counted_not_dispatched)
{
	UdQp ud(g_log);
	Conn live, dead;
	Other other;
	dead.canary = 0;	// as ~Tagged leaves it
	kapi_cq *cq = fake_cq_new();
	ASSERT_NOT_NULL(cq);
	kapi_wc w[] = {
		wc_of(ud.ctx(), wrid(WrKind::RcRecv, 1), KAPI_WC_SUCCESS, 1),	// RC kind on the UD QP
		wc_of(ud.ctx(), wrid(WrKind::Drain, 1), KAPI_WC_WR_FLUSH_ERR, 0),
		wc_of(live.ctx(), wrid(WrKind::UdRecv, 1), KAPI_WC_SUCCESS, 1),	// UD kind on an RC QP
		wc_of(live.ctx(), wrid(WrKind::UdSend, 1), KAPI_WC_SUCCESS, 0),
		wc_of(live.ctx(), 7, KAPI_WC_SUCCESS, 1),			// untagged
		wc_of(live.ctx(), u64(9) << 60, KAPI_WC_WR_FLUSH_ERR, 1),	// unknown kind
		wc_of(dead.ctx(), wrid(WrKind::RcRecv, 0), KAPI_WC_WR_FLUSH_ERR, 1),
		wc_of(other.ctx(), wrid(WrKind::RcRecv, 0), KAPI_WC_SUCCESS, 1),
		wc_of(nullptr, wrid(WrKind::RcSend, 0), KAPI_WC_SUCCESS, 0),
		wc_of(live.ctx(), wrid(WrKind::RcSend, 3), KAPI_WC_SUCCESS, 0),	// refused by its owner
		wc_of(live.ctx(), wrid(WrKind::RcRecv, 4), KAPI_WC_SUCCESS, 1),	// the one taken
	};
	for (auto &x : w)
		fake_cq_push(cq, &x);
	int to_ud = 0, to_rc = 0, rc_calls = 0;
	u32 batched = 0;
	u64 foreign = 0;
	const int n = dispatch_cq(
		cq, 64, foreign, [&](UdQp &, const kapi_wc &) { return ++to_ud, true; },
		[&](RcQp &qp, const kapi_wc &wc) {
			rc_calls++;	// only the live connection's two may get here
			if (&qp != &live || wrid_kind(wc.wr_id) != WrKind::RcRecv)
				return false;
			to_rc++;
			return true;
		},
		[&](u32 k) { batched += k; });
	EXPECT_EQ(n, 11);
	EXPECT_EQ(to_ud, 0);
	EXPECT_EQ(to_rc, 1);
	EXPECT_EQ(rc_calls, 2);		// was 5: the UD QP and the test object handed over as RcQp
	EXPECT_EQ(foreign, 10u);
	EXPECT_EQ(batched, 0u);
	dead.canary = KAPI_CTX_CANARY;
	fake_cq_free(cq);
}

// The non-SRQ fence in both orders (docs/connected.md §4): the owner stops the ring at
// QpToErr and posts the drain WR; the drain WR's completion may come before the receive
// flushes (the provider's completer ran first) or after them. Either way RxEmpty and
// DrainWrDone are each seen once, and RxEmpty only with the last receive flush. Without
// stop() (owner_stops false) the first flush stops the ring by itself.
static void fence_in_order(ktest_ctx *kt, bool drain_first, bool owner_stops)
{
	RcOn t(8, 3);
	ASSERT_TRUE(t.ok);
	if (owner_stops)
		t.r.stop();
	fake_qp_rc(t.qp)->defer_recv_flush = drain_first;
	fake_qp_set_error(t.qp);
	ASSERT_EQ(kapi_post_drain_wr(t.qp, wrid(WrKind::Drain, 0)), 0);
	if (drain_first)
		fake_qp_flush_recv(t.qp);
	int drains = 0, rx_empty = 0, handed_up = 0, seen = 0, drain_at = -1, empty_at = -1;
	u64 foreign = 0;
	dispatch_cq(
		t.cq, 64, foreign, [](UdQp &, const kapi_wc &) { return false; },
		[&](RcQp &qp, const kapi_wc &wc) {
			if (&qp != &t.conn)
				return false;
			seen++;
			if (wrid_kind(wc.wr_id) == WrKind::Drain) {
				drains++;
				drain_at = seen;
				return true;
			}
			if (wrid_kind(wc.wr_id) != WrKind::RcRecv)
				return false;
			const bool was_empty = t.r.empty();
			handed_up += t.r.complete(wc) != nullptr;
			if (!was_empty && t.r.empty()) {
				rx_empty++;
				empty_at = seen;
			}
			return true;
		},
		[&](u32) { t.r.repost(); });
	EXPECT_EQ(drains, 1);
	EXPECT_EQ(rx_empty, 1);
	EXPECT_EQ(seen, 4);
	EXPECT_EQ(drain_at, drain_first ? 1 : 4);
	EXPECT_EQ(empty_at, drain_first ? 4 : 3);
	EXPECT_EQ(handed_up, 0);
	EXPECT_EQ(foreign, 0u);
	EXPECT_EQ(t.c.flushed, 3u);
	EXPECT_EQ(t.rq().nposted, 3);	// nothing posted on the error QP
}

KTEST(rc_dispatch, nonsrq_fence_drain_before_receive_flushes) { fence_in_order(kt, true, true); }
KTEST(rc_dispatch, nonsrq_fence_drain_after_receive_flushes) { fence_in_order(kt, false, true); }
KTEST(rc_dispatch, nonsrq_fence_from_completions) { fence_in_order(kt, false, false); }

// A steady stream at a quarter of the ring per poll is not "idle": the ring keeps every
// buffer (the goal must not drop to the floor after 5 s while packets keep coming). Idle means no completion for kRcShrinkIdleMs.
KTEST(rc_recv_ring, steady_traffic_does_not_shrink)
{
	RcOn t(32, 1);
	ASSERT_TRUE(t.ok);
	u64 now = 1000;
	EXPECT_TRUE(t.ramp(32, now));		// a burst: grow to 32
	u32 min_posted = 32;
	for (int k = 0; k < 7000; k++) {	// 7 s of 8 packets per 1 ms poll
		for (u32 i = 0; i < 8 && t.r.posted(); i++)
			ASSERT_TRUE(t.consume(100));
		t.poll(nullptr, true, now += 1);
		if (t.r.posted() < min_posted)
			min_posted = t.r.posted();
	}
	EXPECT_EQ(min_posted, 32u);
	EXPECT_EQ(t.c.shrunk, 0u);
}

// ---- the growth budget (nonsrq_grow_mb) and one connection's cap

// Rings sharing a budget grow only as far as it holds (refusals counted); the floor is never
// charged, so a ring that gets nothing still has its receive posted; a released ring gives its
// charge back and another ring grows into it.
KTEST(rc_rx_budget, shared_budget_bounds_growth_floor_stays)
{
	RecvGrowBudget b;
	Grown4 warm(32);	// only for the unit: a ring's charge per buffer
	ASSERT_TRUE(warm.grown);
	const u64 unit = warm.r.charge_unit();
	EXPECT_GT(unit, u64(kMaxRecvMtu));
	b.set_limit(3 * unit);
	RcOn a(32, 1), c(32, 1);
	ASSERT_TRUE(a.ok && c.ok);
	a.r.set_growth_bounds(&b, 0);
	c.r.set_growth_bounds(&b, 0);
	u64 now = 1000;
	EXPECT_FALSE(a.ramp(32, now));
	EXPECT_EQ(a.r.active(), 4u);	// the floor and the 3 the budget holds
	EXPECT_EQ(a.r.charged(), 3u);
	EXPECT_EQ(b.used(), 3 * unit);
	EXPECT_GT(a.c.grow_refused, 0u);
	EXPECT_EQ(a.r.posted(), a.r.active());
	EXPECT_FALSE(c.ramp(8, now));	// nothing left for the second ring
	EXPECT_EQ(c.r.active(), 1u);
	EXPECT_EQ(c.r.posted(), 1u);	// its one receive stays posted (the guarantee)
	EXPECT_EQ(u32(fake_rq_outstanding(&c.rq())), 1u);
	EXPECT_GT(c.c.grow_refused, 0u);
	EXPECT_EQ(c.c.grow_failed, 0u);	// refused, not failed for memory
	a.r.release();
	EXPECT_EQ(b.used(), 0u);
	EXPECT_TRUE(c.ramp(4, now));
	EXPECT_EQ(b.used(), 3 * unit);
	c.r.release();
	EXPECT_EQ(b.used(), 0u);
}

// A shrink gives the retired buffers' charge back, down to the uncharged floor.
KTEST(rc_rx_budget, shrink_uncharges)
{
	RecvGrowBudget b;
	RcOn t(32, 1);
	ASSERT_TRUE(t.ok);
	t.r.set_growth_bounds(&b, 0);
	u64 now = 1000;
	ASSERT_TRUE(t.ramp(4, now));
	EXPECT_EQ(b.used(), 3 * t.r.charge_unit());
	now += kRcShrinkIdleMs;
	EXPECT_EQ(t.spaced(4, 4, now), 4);
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_EQ(t.r.charged(), 0u);
	EXPECT_EQ(b.used(), 0u);
	EXPECT_EQ(t.r.posted(), 1u);
}

// One connection's cap: growth stops there (counted), whatever the ring's size.
KTEST(rc_rx_budget, per_connection_cap)
{
	RcOn t(32, 1);
	ASSERT_TRUE(t.ok);
	t.r.set_growth_bounds(nullptr, 8);
	u64 now = 1000;
	EXPECT_FALSE(t.ramp(16, now));
	EXPECT_EQ(t.r.active(), 8u);
	EXPECT_GT(t.c.grow_refused, 0u);
	EXPECT_EQ(t.r.posted(), 8u);
}

// rc_rx_grow_refused counts refusals, not attempts: a ring held at its cap (or by the budget)
// while a stream goes on tries to grow at every low window, and each of those is the same
// refusal. It counts again only after the ring grew again (a shrink, then growth back to the
// bound) or, for the budget, after the budget gave something back since the last refusal.
KTEST(rc_rx_budget, refusals_counted_once_until_growth_or_a_free)
{
	RcOn t(32, 1);
	ASSERT_TRUE(t.ok);
	t.r.set_growth_bounds(nullptr, 8);
	u64 now = 1000;
	EXPECT_FALSE(t.ramp(16, now));
	EXPECT_EQ(t.r.active(), 8u);
	for (int k = 0; k < 200; k++)	// a stream at the cap: every window low
		EXPECT_FALSE(t.ramp(16, now));
	EXPECT_EQ(t.c.grow_refused, 1u);
	// idle: the ring shrinks to its floor; a stream grows it back to the cap: a new refusal
	now += kRcShrinkIdleMs;
	EXPECT_EQ(t.spaced(8, 8, now), 8);
	EXPECT_EQ(t.r.active(), 1u);
	EXPECT_FALSE(t.ramp(16, now));
	EXPECT_EQ(t.r.active(), 8u);
	EXPECT_FALSE(t.ramp(16, now));
	EXPECT_EQ(t.c.grow_refused, 2u);

	// The shared budget: held at 3 buffers while another ring holds the rest.
	RecvGrowBudget b;
	RcOn a(32, 1), c(32, 1);
	ASSERT_TRUE(a.ok && c.ok);
	const u64 unit = a.r.charge_unit();
	b.set_limit(4 * unit);
	a.r.set_growth_bounds(&b, 0);
	c.r.set_growth_bounds(&b, 0);
	EXPECT_TRUE(c.ramp(2, now));	// c holds one unit
	EXPECT_FALSE(a.ramp(32, now));
	EXPECT_EQ(a.r.active(), 4u);
	for (int k = 0; k < 200; k++)
		EXPECT_FALSE(a.ramp(32, now));
	EXPECT_EQ(a.c.grow_refused, 1u);
	// the budget frees (c released): a grows into it, then is refused again: counted again
	c.r.release();
	EXPECT_FALSE(a.ramp(32, now));
	EXPECT_EQ(a.r.active(), 5u);
	for (int k = 0; k < 200; k++)
		EXPECT_FALSE(a.ramp(32, now));
	EXPECT_EQ(a.c.grow_refused, 2u);
	a.r.release();
	EXPECT_EQ(b.used(), 0u);
}

// The budget itself: charges up to the limit, never past it or below zero.
KTEST(rc_rx_budget, accounting)
{
	RecvGrowBudget b;
	EXPECT_TRUE(b.charge(1ull << 40));	// unbounded by default
	b.uncharge(1ull << 40);
	b.set_limit(100);
	EXPECT_TRUE(b.charge(60));
	EXPECT_FALSE(b.charge(41));
	EXPECT_EQ(b.used(), 60u);
	EXPECT_TRUE(b.charge(40));
	EXPECT_FALSE(b.charge(1));
	b.uncharge(30);
	EXPECT_EQ(b.used(), 70u);
	b.uncharge(1000);
	EXPECT_EQ(b.used(), 0u);
	EXPECT_FALSE(b.charge(~0ull));	// no wrap past the limit
}

KTEST_SUITE(wrid, KTEST_CASE(wrid, round_trip));
KTEST_SUITE(rc_recv_ring, KTEST_CASE(rc_recv_ring, sges_and_receive_mtu), KTEST_CASE(rc_recv_ring, head_is_what_the_pages_leave),
	    KTEST_CASE(rc_recv_ring, a_stream_resuming_after_idle_keeps_its_ring),
	    KTEST_CASE(rc_recv_ring, last_receive_reposted_before_its_packet_goes_up),
	    KTEST_CASE(rc_recv_ring, srq_posts_multi_sge_buffers),
	    KTEST_CASE(rc_recv_ring, replacement_first_keeps_unused_pages),
	    KTEST_CASE(rc_recv_ring, never_zero_under_random_allocation_failure),
	    KTEST_CASE(rc_recv_ring, nonsrq_errors_are_not_reposted), KTEST_CASE(rc_recv_ring, srq_errors_are_reposted),
	    KTEST_CASE(rc_recv_ring, grow_if_low), KTEST_CASE(rc_recv_ring, srq_does_not_grow),
	    KTEST_CASE(rc_recv_ring, shrinks_after_idle_without_cancelling),
	    KTEST_CASE(rc_recv_ring, ring_of_one_grows_on_a_stream_only),
	    KTEST_CASE(rc_recv_ring, shrink_stops_at_one_and_needs_no_memory),
	    KTEST_CASE(rc_recv_ring, demand_calls_off_a_pending_shrink),
	    KTEST_CASE(rc_recv_ring, grown_ring_settles_at_its_floor_after_idle),
	    KTEST_CASE(rc_recv_ring, a_shrinking_ring_drained_is_still_demand),
	    KTEST_CASE(rc_recv_ring, a_setup_burst_leaves_a_ring_of_one),
	    KTEST_CASE(rc_recv_ring, finite_rnr_retry_grows_a_ring_of_one_at_once),
	    KTEST_CASE(rc_recv_ring, finite_rnr_retry_shortens_the_exposed_start),
	    KTEST_CASE(rc_recv_ring, post_initial_fails_whole),
	    KTEST_CASE(rc_recv_ring, grows_to_size_under_sustained_load),
	    KTEST_CASE(rc_recv_ring, grows_on_three_quarters_consumed_only),
	    KTEST_CASE(rc_recv_ring, duplicate_completion_of_a_queued_slot_is_refused),
	    KTEST_CASE(rc_recv_ring, byte_len_over_buf_size_is_refused),
	    KTEST_CASE(rc_recv_ring, more_sges_than_the_queue_has_are_refused),
	    KTEST_CASE(rc_recv_ring, refused_post_is_retried_by_the_owner_and_stop_fences),
	    KTEST_CASE(rc_recv_ring, left_empty_counts_a_live_qp_left_with_nothing_posted),
	    KTEST_CASE(rc_recv_ring, never_zero_with_refused_posts_and_errors),
	    KTEST_CASE(rc_recv_ring, stop_with_nothing_posted_is_empty_at_once),
	    KTEST_CASE(rc_recv_ring, copybreak_copies_small_packets_and_reposts_the_buffer),
	    KTEST_CASE(rc_recv_ring, a_completion_it_never_posted_is_refused),
	    KTEST_CASE(rc_recv_ring, steady_traffic_does_not_shrink));
KTEST_SUITE(rc_dispatch, KTEST_CASE(rc_dispatch, by_kind_not_by_opcode),
	    KTEST_CASE(rc_dispatch, foreign_contexts_are_counted_not_dispatched),
	    KTEST_CASE(rc_dispatch, nonsrq_fence_from_completions),
	    KTEST_CASE(rc_dispatch, nonsrq_fence_drain_before_receive_flushes),
	    KTEST_CASE(rc_dispatch, nonsrq_fence_drain_after_receive_flushes));
KTEST_SUITE(rc_rx_budget, KTEST_CASE(rc_rx_budget, shared_budget_bounds_growth_floor_stays),
	    KTEST_CASE(rc_rx_budget, shrink_uncharges), KTEST_CASE(rc_rx_budget, per_connection_cap),
	    KTEST_CASE(rc_rx_budget, refusals_counted_once_until_growth_or_a_free),
	    KTEST_CASE(rc_rx_budget, accounting));
