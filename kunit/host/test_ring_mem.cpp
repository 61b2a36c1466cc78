// SPDX-License-Identifier: GPL-2.0
// test_ring_mem.cpp (host only, over kunit/host/fake_verbs.c): the rings' memory accounting
// (docs/connected.md §5.1): RecvRing::bytes() follows every buffer it
// allocates and frees (post_initial, replacement, growth, growth without memory, the idle
// shrink, copybreak, errors) and is 0 after release(); the refused completions reach the
// owner's counter (item 3: ethtool rc_rx_refused). The send ring's accounting and trim() are
// in test_rc_tx_ring.cpp, the UD ring's in test_rings.cpp.
//
// The expected sizes are computed here from the parts, not read back from the ring: a head's
// truesize in the fake is its allocation (size + 64, fake_verbs.c), a page KAPI_PAGE_SIZE.
#include "fake_verbs.h"
#include "core/cm/ipoib_cm_wire.h"
#include "core/rings/ipoib_rc_qp.h"
#include "core/rings/ipoib_recv_ring.h"
#include "core/rings/ipoib_wrid.h"
#include "ktest.h"

using namespace ipoib;
using ipoib::cm::kMaxRecvMtu;

namespace {

struct Conn : RcQp {};

struct RxCtrs {
	u64 nomem = 0, wc_errors = 0, flushed = 0, post_errors = 0, grown = 0, grow_failed = 0, shrunk = 0,
	    refused = 0;
	RecvCounters refs()
	{
		return {&nomem, &wc_errors, &flushed, &post_errors, &grown, &grow_failed, &shrunk, &refused};
	}
};

constexpr u64 kFakeHeadExtra = 64;	// fake_verbs.c: an skb's truesize is its size + 64

// What the ring's tables and one of its buffers should cost, from the parts.
u64 rx_tables(u32 slots) { return u64(slots) * (sizeof(kstd::Unique<RxBuf>) + sizeof(u32)); }
// (Only kMaxRecvMtu buffers here: 16 pages and a head of kFragHeadMin, ipoib_frag.h.)
u64 rx_buf(u32 buf_size)
{
	const u32 pages = RecvRing::sges_for(buf_size) - 1;
	const u32 head = buf_size == kMaxRecvMtu ? kFragHeadMin : buf_size;
	return sizeof(RxBuf) + u64(pages) * (sizeof(MappedPage) + KAPI_PAGE_SIZE) + head + kFakeHeadExtra;
}

// A non-SRQ RC QP with its own ring (as test_rc_rings.cpp's RcOn, reduced).
struct RcRing {
	RxCtrs c;
	Conn conn;
	kapi_cq *cq = fake_cq_new();
	kapi_qp *qp = nullptr;
	RecvRing r;
	bool ok = false;
	RcRing(u32 slots, u32 initial) : r(nullptr, RecvQueue::RcQp, c.refs())
	{
		kapi_qp_init init{};
		init.ctx = conn.ctx();
		init.recv_wr = slots;
		init.recv_sge = RecvRing::sges_for(kMaxRecvMtu);
		qp = kapi_rc_qp_create(nullptr, cq, nullptr, &init);
		if (!cq || !qp || !kstd::ok(r.alloc(slots, kMaxRecvMtu)))
			return;
		r.bind(nullptr, RecvTarget{qp, nullptr}, 0);
		ok = initial == 0 || kstd::ok(r.post_initial(initial));
	}
	~RcRing()
	{
		r.release();
		if (qp)
			kapi_qp_destroy(qp);
		fake_cq_free(cq);
	}
	bool consume(u32 len, u32 status = KAPI_WC_SUCCESS)
	{
		return fake_rq_consume(fake_qp_rq(qp), cq, conn.ctx(), status, len) == 1;
	}
	void poll(u64 now)
	{
		kapi_wc wc[kPollBatch];
		int n;
		while ((n = kapi_cq_poll(cq, wc, int(kPollBatch))) > 0)
			for (int i = 0; i < n; i++)
				if (kapi_skb *skb = r.complete(wc[i]))
					kapi_skb_free(skb);
		r.adapt(now);
		r.repost();
	}
	// What the ring should hold: its tables and one buffer per active slot.
	u64 expect() const { return rx_tables(r.size()) + u64(r.active()) * rx_buf(kMaxRecvMtu); }
};

} // namespace

// Grow, replace, shrink, release: after every step the ring holds its tables and one buffer
// per active slot, and nothing after release().
KTEST(ring_mem, rc_rx_bytes_follow_growth_shrink_and_release)
{
	const long skbs = fake_skbs_live();
	{
		RcRing t(32, 0);
		ASSERT_TRUE(t.ok);
		EXPECT_EQ(t.r.bytes(), rx_tables(32));	// tables only: no buffer yet
		ASSERT_OK(t.r.post_initial(1));
		EXPECT_EQ(t.r.bytes(), rx_tables(32) + rx_buf(kMaxRecvMtu));
		// ~65 KiB for one 65520-byte buffer (a 256-byte head and 16 pages; a 3712-byte head
		// would make it 70 KiB): less than 16 pages and a page-sized head
		EXPECT_GE(t.r.bytes(), 16u * KAPI_PAGE_SIZE + kFragHeadMin);
		EXPECT_LT(t.r.bytes(), 16u * KAPI_PAGE_SIZE + kFragHeadMax);
		u64 now = 1000;
		// a stream: 1 -> 2 (at the kRcGrowStreak1-th window) -> 4 -> 8 -> 16, replacement each time
		for (u32 k = 0; k < kRcGrowStreak1 + 3; k++) {
			const u32 n = t.r.posted();
			for (u32 i = 0; i < n; i++)
				ASSERT_TRUE(t.consume(60000));
			t.poll(now += 1);
			EXPECT_EQ(t.r.bytes(), t.expect());
		}
		EXPECT_EQ(t.r.active(), 16u);
		EXPECT_EQ(t.r.bytes(), rx_tables(32) + 16 * rx_buf(kMaxRecvMtu));
		ASSERT_TRUE(t.consume(100));	// copybreak: the same buffer again
		t.poll(now += 1);
		EXPECT_EQ(t.r.bytes(), t.expect());
		t.poll(now += kRcShrinkIdleMs);	// idle: the goal drops to 1
		for (u32 left = 15; left >= 2; left--) {
			ASSERT_TRUE(t.consume(1000));
			t.poll(++now);
			EXPECT_EQ(t.r.active(), left);
			EXPECT_EQ(t.r.bytes(), t.expect());
		}
		EXPECT_EQ(t.r.bytes(), rx_tables(32) + 2 * rx_buf(kMaxRecvMtu));
		ASSERT_TRUE(t.consume(1000));	// and down to its floor (not back to 2)
		t.poll(++now);
		EXPECT_EQ(t.r.active(), 1u);
		EXPECT_EQ(t.r.bytes(), rx_tables(32) + rx_buf(kMaxRecvMtu));
		t.r.stop();
		t.r.release();
		EXPECT_EQ(t.r.bytes(), 0u);
		EXPECT_EQ(t.r.size(), 0u);	// the tables went too
	}
	EXPECT_EQ(fake_skbs_live(), skbs);
}

// Without memory nothing changes hands, and the count says so: growth that fails, a
// replacement that fails (the packet dropped, the buffer reposted), a post_initial that
// fails half-way; and a random mix with allocation failing at random keeps the count equal
// to the buffers the ring holds after every poll.
KTEST(ring_mem, rc_rx_bytes_under_allocation_failure)
{
	{
		RcRing t(16, 2);
		ASSERT_TRUE(t.ok);
		ASSERT_TRUE(t.consume(60000) && t.consume(60000));
		{
			ktest::AllocFailAll no_memory;
			t.poll(1000);	// no replacement (2 dropped), no growth
		}
		EXPECT_EQ(t.c.nomem, 2u);
		EXPECT_EQ(t.c.grow_failed, 1u);
		EXPECT_EQ(t.r.active(), 2u);
		EXPECT_EQ(t.r.bytes(), rx_tables(16) + 2 * rx_buf(kMaxRecvMtu));
	}
	{
		RcRing t(16, 0);
		ASSERT_TRUE(t.ok);
		ktest_alloc_fail_nth(40);	// the third buffer's parts (1 + 1 + 1 + 16 + ... each)
		EXPECT_FALSE(kstd::ok(t.r.post_initial(4)));
		ktest_alloc_fail_nth(-1);
		EXPECT_GE(t.r.active(), 1u);
		EXPECT_LT(t.r.active(), 4u);
		EXPECT_EQ(t.r.bytes(), t.expect());
		t.r.release();
		EXPECT_EQ(t.r.bytes(), 0u);
	}
	RcRing t(32, 1);
	ASSERT_TRUE(t.ok);
	u32 s = 12345;
	auto rnd = [&s](u32 n) {
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		return s % n;
	};
	u64 now = 1000;
	u32 grew = 0, shrank = 0;
	for (int step = 0; step < 400; step++) {
		const u32 n = rnd(t.r.posted() + 1);
		for (u32 i = 0; i < n; i++)
			ASSERT_TRUE(t.consume(1 + rnd(kMaxRecvMtu)));
		const u32 before = t.r.active();
		if (rnd(4) == 0)
			ktest_alloc_fail_nth(int(rnd(40)));
		t.poll(now += rnd(8) == 0 ? kRcShrinkIdleMs : 1);
		ktest_alloc_fail_nth(-1);
		grew += t.r.active() > before;
		shrank += t.r.active() < before;
		ASSERT_EQ(t.r.bytes(), t.expect());
	}
	EXPECT_GT(grew, 0u);	// the walk exercised both directions
	EXPECT_GT(shrank, 0u);
}

// Errors: a stopping error keeps the buffer (held until release) and so its bytes.
KTEST(ring_mem, rc_rx_error_keeps_bytes_until_release)
{
	RcRing t(8, 2);
	ASSERT_TRUE(t.ok);
	const u64 two = rx_tables(8) + 2 * rx_buf(kMaxRecvMtu);
	EXPECT_EQ(t.r.bytes(), two);
	ASSERT_TRUE(t.consume(0, KAPI_WC_WR_FLUSH_ERR));
	ASSERT_TRUE(t.consume(0, KAPI_WC_WR_FLUSH_ERR));
	t.poll(1000);
	EXPECT_TRUE(t.r.empty());
	EXPECT_EQ(t.r.bytes(), two);	// held, not freed: the ring's until release()
	t.r.release();
	EXPECT_EQ(t.r.bytes(), 0u);
}

KTEST(ring_mem, rc_rx_refused_reaches_the_owners_counter)
{
	RcRing t(8, 1);
	ASSERT_TRUE(t.ok);
	kapi_wc wc{};
	wc.wr_id = wrid(WrKind::RcRecv, 5);	// never posted
	wc.status = KAPI_WC_SUCCESS;
	ktest_warn_catch_begin();
	EXPECT_NULL(t.r.complete(wc));
	EXPECT_NULL(t.r.complete(wc));
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	EXPECT_EQ(t.r.refused(), 2u);
	EXPECT_EQ(t.c.refused, 2u);	// ethtool rc_rx_refused
}

KTEST_SUITE(ring_mem, KTEST_CASE(ring_mem, rc_rx_bytes_follow_growth_shrink_and_release),
	    KTEST_CASE(ring_mem, rc_rx_bytes_under_allocation_failure),
	    KTEST_CASE(ring_mem, rc_rx_error_keeps_bytes_until_release),
	    KTEST_CASE(ring_mem, rc_rx_refused_reaches_the_owners_counter));
