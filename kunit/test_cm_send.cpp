// SPDX-License-Identifier: GPL-2.0
// test_cm_send.cpp - connected mode's xmit-path logic (ipoib_cm_send.h): the RC send bound
// reserved before the post and released on failure or completion, underflows counted
// (review-s5 R3); the peer index (F12); the send-path hand-over skipping a connection in
// teardown (R2); the pending-queue flush bounded by the RC send budget (R5).
#include "ktest.h"
#include "ipoib_cm_send.h"

namespace ktest_cm_send {

using namespace ipoib;

constexpr u8 kGid[kGidLen] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};

// ------------------------------------------------------------------ RcSendBudget

KTEST(cm_send_budget, bound_and_wake_mark)
{
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(4);
	for (int i = 0; i < 4; i++)
		EXPECT_TRUE(b.reserve());
	EXPECT_FALSE(b.reserve());	// at the bound: nothing reserved
	EXPECT_EQ(b.inflight(), 4u);
	EXPECT_TRUE(b.full());
	EXPECT_FALSE(b.below_wake());
	b.complete(1);
	EXPECT_FALSE(b.full());
	EXPECT_FALSE(b.below_wake());	// 3 > 4 / 2
	b.complete(1);
	EXPECT_TRUE(b.below_wake());	// half
	EXPECT_EQ(under, 0u);
}

// The completion of a send can be polled on another CPU before the poster returns: with the
// slot taken before the post the count is exact whatever the order (counted after the post,
// that completion found 0, was clamped away, and the later increment leaked for good).
KTEST(cm_send_budget, completion_before_poster_returns)
{
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(8);
	for (int round = 0; round < 1000; round++) {
		ASSERT_TRUE(b.reserve());	// xmit: before the post
		b.complete(1);			// NAPI: the completion, at once
	}
	EXPECT_EQ(b.inflight(), 0u);
	EXPECT_EQ(under, 0u);
	// and a full ring still drains to 0 and reopens
	for (int i = 0; i < 8; i++)
		ASSERT_TRUE(b.reserve());
	b.complete(8);
	EXPECT_EQ(b.inflight(), 0u);
	EXPECT_TRUE(b.reserve());
}

KTEST(cm_send_budget, failed_post_returns_its_slot)
{
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(2);
	ASSERT_TRUE(b.reserve());
	ASSERT_TRUE(b.reserve());
	b.unreserve();			// the post failed
	EXPECT_EQ(b.inflight(), 1u);
	EXPECT_TRUE(b.reserve());	// the slot is usable again
	EXPECT_EQ(under, 0u);
}

KTEST(cm_send_budget, underflow_clamped_and_counted)
{
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(4);
	ASSERT_TRUE(b.reserve());
	b.complete(3);
	EXPECT_EQ(b.inflight(), 0u);
	EXPECT_EQ(under, 2u);
	EXPECT_EQ(b.underflows(), 2u);
	b.unreserve();			// nothing reserved: one more
	EXPECT_EQ(under, 3u);
	EXPECT_EQ(b.inflight(), 0u);
}

// ------------------------------------------------------------------ CmPeerIndex

struct FakePeer {
	HwAddr addr;
	FakePeer *hnext = nullptr;
};

KTEST(cm_peer_index, finds_every_peer_past_the_bucket_count)
{
	constexpr u32 n = 3 * kCmPeerBuckets;
	static FakePeer peers[n];
	static CmPeerIndex<FakePeer> ix;	// 2 KiB: not on the kernel stack
	ix.clear();
	for (u32 i = 0; i < n; i++) {
		peers[i].addr = HwAddr::make(0, 0x48 + i, kGid);
		ix.insert(peers[i]);
	}
	for (u32 i = 0; i < n; i++)
		EXPECT_TRUE(ix.find(HwAddr::make(0, 0x48 + i, kGid)) == &peers[i]);
	EXPECT_TRUE(ix.find(HwAddr::make(0, 0x48 + n, kGid)) == nullptr);
	// all 20 octets compared: another GID with the same QPN is another peer
	u8 gid2[kGidLen];
	for (u32 i = 0; i < kGidLen; i++)
		gid2[i] = kGid[i];
	gid2[15] ^= 1;
	EXPECT_TRUE(ix.find(HwAddr::make(0, 0x48, gid2)) == nullptr);
	// remove every other one: the rest are still found, the removed ones not
	for (u32 i = 0; i < n; i += 2)
		EXPECT_TRUE(ix.remove(peers[i]));
	EXPECT_FALSE(ix.remove(peers[0]));	// not in the index any more
	for (u32 i = 0; i < n; i++)
		EXPECT_TRUE(ix.find(HwAddr::make(0, 0x48 + i, kGid)) == (i % 2 ? &peers[i] : nullptr));
	ix.clear();
	EXPECT_TRUE(ix.find(HwAddr::make(0, 0x49, kGid)) == nullptr);
}

// ------------------------------------------------------------------ cm_send_candidate

struct FakeConn {
	bool offered;
	bool carry;	// not draining or closed
};

KTEST(cm_send_candidate, skips_a_connection_in_teardown)
{
	auto carry = [](const FakeConn *c) { return c->carry; };
	FakeConn act_ok{true, true}, act_draining{true, false}, pas_ok{true, true}, pas_draining{true, false};
	FakeConn not_offered{false, true};
	EXPECT_TRUE(cm_send_candidate(&act_ok, &pas_ok, carry) == &act_ok);	// active first
	EXPECT_TRUE(cm_send_candidate(&act_draining, &pas_ok, carry) == &pas_ok);
	EXPECT_TRUE(cm_send_candidate(&not_offered, &pas_ok, carry) == &pas_ok);
	EXPECT_TRUE(cm_send_candidate(&act_draining, &pas_draining, carry) == nullptr);
	EXPECT_TRUE(cm_send_candidate(&act_ok, &pas_draining, carry) == &act_ok);
	EXPECT_TRUE(cm_send_candidate<FakeConn>(nullptr, &pas_draining, carry) == nullptr);
	EXPECT_TRUE(cm_send_candidate<FakeConn>(nullptr, nullptr, carry) == nullptr);
}

// ------------------------------------------------------------------ cm_flush_bounded

KTEST(cm_flush_bounded, stops_at_the_bound_in_order)
{
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(8);
	for (int i = 0; i < 5; i++)
		ASSERT_TRUE(b.reserve());	// 5 of 8 already in flight
	kstd::Ring<int, 16> q;
	for (int i = 0; i < 10; i++)
		ASSERT_TRUE(q.push(i));
	int sent[16], ns = 0;
	const u32 n = cm_flush_bounded(q, [&] { return b.reserve(); }, [&](int v) { sent[ns++] = v; });
	EXPECT_EQ(n, 3u);
	ASSERT_EQ(ns, 3);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(sent[i], i);		// the oldest first
	EXPECT_EQ(b.inflight(), 8u);		// never past the bound
	ASSERT_EQ(q.size(), 7u);		// the rest stays queued (review s6 L5)
	for (int i = 3; i < 10; i++) {
		int v = -1;
		ASSERT_TRUE(q.pop(v));
		EXPECT_EQ(v, i);		// in order
	}
}

// Once one packet is refused, none after it is sent even if a slot frees meanwhile: the
// queue's order holds.
KTEST(cm_flush_bounded, no_overtaking_after_a_refusal)
{
	kstd::Ring<int, 8> q;
	for (int i = 0; i < 4; i++)
		ASSERT_TRUE(q.push(i));
	int calls = 0, ns = 0;
	auto reserve = [&] { return ++calls != 2; };	// the second refused, later ones would pass
	const u32 n = cm_flush_bounded(q, reserve, [&](int) { ns++; });
	EXPECT_EQ(n, 1u);
	EXPECT_EQ(ns, 1);
	EXPECT_EQ(calls, 2);			// stopped at the refusal
	EXPECT_EQ(q.size(), 3u);
	int v = -1;
	ASSERT_TRUE(q.pop(v));
	EXPECT_EQ(v, 1);			// the refused one is still first
}

// Review s6 L5: one peer's packets leave in the order they came, across a hand-over flush
// that stops at the RC bound while new packets keep arriving. The pieces the table runs:
// xmit posts at once only when cm_post_now allows it (else queues behind the waiting ones
// and flushes), each flush is cm_flush_bounded on the peer's queue, completions free the
// bound (RcSendBudget) and the housekeeping flush continues. Posted order = arrival order.
KTEST(cm_flush_bounded, peer_order_kept_across_the_bound)
{
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(4);
	kstd::Ring<int, 64> pending;
	int wire[128], nw = 0, next = 0;
	auto post = [&](int v) { wire[nw++] = v; };
	auto reserve = [&] { return b.reserve(); };
	auto flush = [&] { cm_flush_bounded(pending, reserve, post); };
	auto xmit = [&] {
		const int v = next++;
		if (cm_post_now(true, pending.size())) {
			if (reserve())
				post(v);
			return;	// at the bound the table drops it (cm_inflight_full): not here
		}
		ASSERT_TRUE(pending.push(v));
		flush();
	};
	for (int i = 0; i < 10; i++)	// queued while the connection was set up
		ASSERT_TRUE(pending.push(next++));
	flush();			// StartSending: 4 fit, 6 wait
	EXPECT_EQ(nw, 4);
	EXPECT_EQ(pending.size(), 6u);
	for (int round = 0; round < 6; round++) {
		xmit();			// a new packet while some wait
		xmit();
		b.complete(3);		// NAPI: sends completed
		if (round % 2)
			flush();	// the housekeeping run rc_sent kicked
	}
	b.complete(b.inflight());
	while (!pending.empty()) {
		flush();
		b.complete(b.inflight());
	}
	EXPECT_EQ(nw, next);		// every packet posted once
	for (int i = 0; i < nw; i++)
		EXPECT_EQ(wire[i], i);	// in arrival order
	EXPECT_EQ(under, 0u);
}

KTEST_SUITE(cm_send_budget, KTEST_CASE(cm_send_budget, bound_and_wake_mark),
	    KTEST_CASE(cm_send_budget, completion_before_poster_returns),
	    KTEST_CASE(cm_send_budget, failed_post_returns_its_slot),
	    KTEST_CASE(cm_send_budget, underflow_clamped_and_counted));
KTEST_SUITE(cm_peer_index, KTEST_CASE(cm_peer_index, finds_every_peer_past_the_bucket_count));
KTEST_SUITE(cm_send_candidate, KTEST_CASE(cm_send_candidate, skips_a_connection_in_teardown));
KTEST_SUITE(cm_flush_bounded, KTEST_CASE(cm_flush_bounded, stops_at_the_bound_in_order),
	    KTEST_CASE(cm_flush_bounded, no_overtaking_after_a_refusal),
	    KTEST_CASE(cm_flush_bounded, peer_order_kept_across_the_bound));

} // namespace ktest_cm_send
