// SPDX-License-Identifier: GPL-2.0
// test_cm_send.cpp - connected mode's xmit-path logic (ipoib_cm_send.h): the RC send bound
// reserved before the post and released on failure or completion, underflows counted, its
// reserve kept for connections making progress (rc_slot); the
// peer index; the send-path hand-over skipping a connection in teardown; the pending-queue
// flush bounded by the RC send budget, cm_flush_peer and cm_xmit_rc (docs/connected.md §4).
#include "ktest.h"
#include "core/cm/ipoib_cm_send.h"
#include "core/cm/ipoib_cm_send_clock.h"

namespace ktest_cm_send {

using namespace ipoib;

constexpr u8 kGid[kGidLen] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};

// ------------------------------------------------------------------ RcSendBudget

KTEST(cm_send_budget, bound_and_room)
{
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(4);
	for (int i = 0; i < 4; i++)
		EXPECT_TRUE(b.reserve());
	EXPECT_FALSE(b.reserve());	// at the bound: nothing reserved
	EXPECT_EQ(b.inflight(), 4u);
	EXPECT_TRUE(b.full());
	EXPECT_FALSE(b.backlog_room());
	b.complete(1);
	EXPECT_FALSE(b.full());
	EXPECT_EQ(under, 0u);
}

// The backlog goes on at the first free slot, not at a wake mark: stalled connections that
// hold three quarters of the bound never let the count come down to half, and a healthy
// peer in the backlog behind them would wait for their watchdog. (With the old rule,
// continue at half, backlog_room() stays false here: the case fails.)
KTEST(cm_send_budget, one_free_slot_continues_the_backlog)
{
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(16, 4);
	for (int i = 0; i < 12; i++)
		ASSERT_TRUE(b.take(false) == CmSlot::Ok);	// stalled ones: the shared part
	for (int i = 0; i < 4; i++)
		ASSERT_TRUE(b.take(true) == CmSlot::Ok);	// a healthy one: the reserve
	EXPECT_TRUE(b.full());
	b.complete(1);	// the healthy one completes one send
	EXPECT_TRUE(b.backlog_room());
	EXPECT_FALSE(b.shared_room());
	EXPECT_EQ(under, 0u);
}

// rc_slot, the rule behind every slot (docs/connected.md §3): a connection's own ring first,
// then the interface bound, then the reserve, which only connections making progress take.
// (Without the reserve, the old rule, a stalled connection got Ok at 12 and 13 of 16: the
// Reserve expectations fail.)
KTEST(cm_send_budget, reserve_kept_for_progress)
{
	EXPECT_TRUE(rc_slot(false, 0, 16, 4, true) == CmSlot::ConnFull);	// its own ring first
	EXPECT_TRUE(rc_slot(false, 16, 16, 4, false) == CmSlot::ConnFull);
	EXPECT_TRUE(rc_slot(true, 16, 16, 4, true) == CmSlot::IfFull);
	EXPECT_TRUE(rc_slot(true, 16, 16, 4, false) == CmSlot::IfFull);
	EXPECT_TRUE(rc_slot(true, 11, 16, 4, false) == CmSlot::Ok);	// the shared part
	EXPECT_TRUE(rc_slot(true, 12, 16, 4, false) == CmSlot::Reserve);	// the reserve
	EXPECT_TRUE(rc_slot(true, 15, 16, 4, false) == CmSlot::Reserve);
	EXPECT_TRUE(rc_slot(true, 12, 16, 4, true) == CmSlot::Ok);
	EXPECT_TRUE(rc_slot(true, 15, 16, 4, true) == CmSlot::Ok);
	EXPECT_TRUE(rc_slot(true, 0, 16, 0, false) == CmSlot::Ok);	// no reserve
	EXPECT_TRUE(rc_slot(true, 15, 16, 0, false) == CmSlot::Ok);
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(8, 2);
	EXPECT_EQ(b.reserve_size(), 2u);
	for (int i = 0; i < 6; i++)
		ASSERT_TRUE(b.take(false) == CmSlot::Ok);
	EXPECT_TRUE(b.take(false) == CmSlot::Reserve);	// nothing reserved
	EXPECT_EQ(b.inflight(), 6u);
	EXPECT_TRUE(b.take(true) == CmSlot::Ok);
	EXPECT_TRUE(b.take(true) == CmSlot::Ok);
	EXPECT_TRUE(b.take(true) == CmSlot::IfFull);
	b.set_limit(4, 4);	// a reserve of the whole bound is none (a stalled one could never send)
	EXPECT_EQ(b.reserve_size(), 0u);
	EXPECT_EQ(under, 0u);
}

// The reserve's eligibility (cm::reserve_eligible): nothing outstanding and no bar always
// is; a head of line cm::kReserveHolMs old is not; more sends since the last completion than
// its batch plus cm::kReserveUnacked is not (a batch of 0: none since the 0 -> 1 post); a
// bar is not, even with nothing outstanding.
KTEST(cm_send_budget, progress_threshold)
{
	constexpr u32 K = cm::kReserveUnacked, T = cm::kReserveHolMs;
	EXPECT_TRUE(cm::reserve_eligible(0, 0, 0, 0, false));
	EXPECT_FALSE(cm::reserve_eligible(0, 0, 0, 0, true));
	EXPECT_TRUE(cm::reserve_eligible(5, T - 1, K, 0, false));
	EXPECT_FALSE(cm::reserve_eligible(5, T, 0, 5, false));
	EXPECT_FALSE(cm::reserve_eligible(5, 0, K + 1, 0, false));	// none completed since the 0 -> 1 post
	EXPECT_TRUE(cm::reserve_eligible(5, 0, K + 1, 1, false));	// a batch of one did
	EXPECT_FALSE(cm::reserve_eligible(9, 0, K + 2, 1, false));	// ... and grants one more, not the ring
	EXPECT_TRUE(cm::reserve_eligible(9, 0, K + 4, 4, false));
	EXPECT_FALSE(cm::reserve_eligible(9, 0, 0, 4, true));
	// the credit: a batch's size; 1 after a post; 0 when the ring emptied
	EXPECT_EQ(cm::reserve_credit(0, true, 3), 1u);
	EXPECT_EQ(cm::reserve_credit(1, false, 2), 2u);
	EXPECT_EQ(cm::reserve_credit(2, true, 2), 1u);
	EXPECT_EQ(cm::reserve_credit(7, false, 0), 0u);
	// the bar: from a completion cm::kReserveHolMs or more after its post
	EXPECT_EQ(cm::reserve_bar_after(0, 1000 + T - 1, 1000), 0u);
	EXPECT_EQ(cm::reserve_bar_after(0, 1000 + T, 1000), 1000 + 3 * T);	// twice its age
	EXPECT_EQ(cm::reserve_bar_after(77, 1000, 1000 + 5), 77u);	// stamped after now: not late
	EXPECT_TRUE(cm::reserve_barred(99, 100));
	EXPECT_FALSE(cm::reserve_barred(100, 100));
	// the ring's view: post times per send, the head the last completion saw and its batch
	cm::ReserveClock<8> c;
	for (int i = 0; i < 3; i++)
		c.posted(1000 + i);
	EXPECT_FALSE(c.eligible(1002));	// 3 and none completed: this would be the fourth
	EXPECT_EQ(c.unacked(), 3u);
	cm::ReserveClock<8> two;
	two.posted(1000);
	two.posted(1000);
	EXPECT_TRUE(two.eligible(1000));	// the third may go
	c.completed(1, 1005);	// a batch of one: none unacknowledged, the head of line is the second
	EXPECT_EQ(c.unacked(), 0u);
	EXPECT_EQ(c.ack.credit, 1u);
	for (u32 i = 0; i <= K + 1; i++) {	// credit: the batch's one plus K, then refused
		EXPECT_TRUE(c.eligible(1010));
		c.posted(1010);
	}
	EXPECT_FALSE(c.eligible(1010));
	c.completed(2, 1020);	// a batch of two
	EXPECT_EQ(c.ack.credit, 2u);
	for (u32 i = 0; i < K + 2; i++)
		c.posted(1020);
	EXPECT_TRUE(c.eligible(1040));
	EXPECT_EQ(c.hol_age_ms(1040), 30u);	// the first posted at 1010
	EXPECT_TRUE(c.eligible(1059));
	EXPECT_FALSE(c.eligible(1060));	// 50 ms since its post
	EXPECT_FALSE(c.barred(1060));	// refused, not barred: nothing completed late yet
	c.completed(1, 1060);	// late: barred for twice its age (50 ms) from here
	EXPECT_TRUE(c.barred(1060));
	c.completed(3, 1061);	// the rest posted at 1010: late too, the bar runs from the last
	c.completed(20, 1061);	// posted at 1020: in time
	EXPECT_EQ(c.outstanding(), 0u);
	EXPECT_FALSE(c.eligible(1061 + 2 * 51 - 1));	// nothing outstanding, barred
	EXPECT_TRUE(c.eligible(1061 + 2 * 51));
	EXPECT_EQ(c.hol_age_ms(5000), 0u);
	// the post times are u32 ms: a wrap keeps the difference
	cm::ReserveClock<8> w;
	w.posted(0xffffffffull - 9);
	EXPECT_EQ(w.hol_age_ms(0x100000000ull + 10), 20u);
	w.completed(1, 0x100000000ull + 10);
	EXPECT_FALSE(w.barred(0x100000000ull + 10));
}

// The bar is proportional to the lateness: until now + min(cm::kSendWatchdogMs, 2 * age).
// A hold just short of the watchdog bars ~10 s; an in-tree peer's 655 ms RNR NAK timer (or
// one transport retry, or our own NAPI latency) ~1.3 s, not 10 s; a bar already longer
// stays.
KTEST(cm_send_budget, bar_proportional_to_lateness)
{
	constexpr u32 T = cm::kReserveHolMs;
	constexpr u64 W = cm::kSendWatchdogMs;
	EXPECT_EQ(cm::reserve_bar_after(0, 1000 + T - 1, 1000), 0u);
	EXPECT_EQ(cm::reserve_bar_after(0, 1000 + T, 1000), 1000 + 3 * T);
	EXPECT_EQ(cm::reserve_bar_after(0, 1655, 1000), 1655 + 1310u);
	EXPECT_EQ(cm::reserve_bar_after(0, 1000 + W / 2 - 1, 1000), 1000 + 3 * (W / 2 - 1));
	EXPECT_EQ(cm::reserve_bar_after(0, 1000 + W / 2, 1000), 1000 + W / 2 + W);
	EXPECT_EQ(cm::reserve_bar_after(0, 1000 + W - 100, 1000), 1000 + W - 100 + W);
	EXPECT_EQ(cm::reserve_bar_after(99999, 1100, 1000), 99999u);	// longer: kept
	// a healthy peer's one 655 ms hiccup: back in the reserve 1.31 s after it
	cm::ReserveClock<8> c;
	c.posted(1000);
	c.posted(1000);
	c.completed(2, 1655);
	EXPECT_TRUE(c.barred(1655 + 1309));
	EXPECT_FALSE(c.barred(1655 + 1310));
	EXPECT_TRUE(c.eligible(1655 + 1310));
	// the teardown's head of line counts the same way
	cm::ReserveClock<8> d;
	d.posted(1000);
	EXPECT_EQ(d.ended(1000 + 700), 1000 + 700 + 1400u);
}

// A completion that waited behind our own receive backlog on the shared CQ
// (cm::poll_backlog_lag): the backlog's age is not the peer's lateness. A poll that used its
// whole budget begins a backlog, the polls that continue it keep its start, one that empties
// the CQ ends it. A send already kReserveHolMs late when the backlog began still bars.
KTEST(cm_send_budget, receive_backlog_is_not_lateness)
{
	constexpr u32 T = cm::kReserveHolMs;
	EXPECT_EQ(cm::poll_backlog_next(0, 1100, 64, 64), 1100u);	// a full poll: backlog begins
	EXPECT_EQ(cm::poll_backlog_next(1100, 1300, 64, 64), 1100u);	// continued: its start kept
	EXPECT_EQ(cm::poll_backlog_next(1100, 1400, 10, 64), 0u);	// the CQ emptied: none
	EXPECT_EQ(cm::poll_backlog_next(0, 1400, 10, 64), 0u);
	EXPECT_EQ(cm::poll_backlog_next(1100, 1400, 0, 0), 1100u);	// netpoll's no-budget poll
	EXPECT_EQ(cm::poll_backlog_lag(1400, 0), 0u);
	EXPECT_EQ(cm::poll_backlog_lag(1400, 1100), 300u);
	// posted at 1000 just before a flood (backlog from 1010), processed at 1000 + 10 * T:
	// delayed by the flood alone, no bar
	const u64 at = 1000 + 10 * T;
	EXPECT_EQ(cm::reserve_bar_after(0, at, 1000, cm::poll_backlog_lag(at, 1010)), 0u);
	// the same completion without the backlog is late (the bar as before)
	EXPECT_EQ(cm::reserve_bar_after(0, at, 1000), at + 2 * 10 * T);
	// posted at 1000, already T + 100 old when the backlog began: late, barred for twice
	// its lateness before the backlog
	EXPECT_EQ(cm::reserve_bar_after(0, at, 1000, cm::poll_backlog_lag(at, 1000 + T + 100)),
		  at + 2 * (T + 100));
}

// Full polls (64 of 64) every 5 ms from `from` up to (not including) `until`: a receive flood.
static void flood_polls(cm::PollBacklog &pb, u64 from, u64 until)
{
	for (u64 t = from; t < until; t += 5)
		pb.after(t, 64, 64);
}

// A receive flood (any node can send one over UD) delays our send completions behind it,
// but by no more than the host takes to turn the CQ over (cm::PollBacklog::floor_ms: a CQ
// of depth 512 at 64 a poll, 8 polls, 40 ms here). What a peer held before the backlog
// began counts; so does what it holds longer than that turnover while the flood lasts:
// the flooder's own sends, posted and held 300 ms during its flood, bar it (by the
// backlog's start alone, as before, its 300 ms were all taken for our lag: no bar). A
// healthy peer's send posted during the flood, completed at once and taken 8 polls
// later, is not barred.
KTEST(cm_send_budget, flood_does_not_hide_a_held_send)
{
	static cm::PollBacklog pb;
	constexpr u32 kDepth = 512;
	// held 300 ms before a 200 ms backlog: posted at 1000, the backlog from 1300, taken at 1500
	pb.reset();
	EXPECT_EQ(pb.floor_ms(kDepth), 0u);
	flood_polls(pb, 1300, 1500);
	EXPECT_EQ(pb.since_ms, 1300u);
	EXPECT_EQ(pb.floor_ms(kDepth), 1460u);	// 8 polls back
	EXPECT_EQ(cm::reserve_bar_after(0, 1500, 1000, cm::poll_backlog_lag(1500, pb.floor_ms(kDepth))),
		  1500u + 2 * 460);
	// a CQ deeper than the polls kept: the backlog's start bounds the lag
	EXPECT_EQ(pb.floor_ms(64 * 41), 1300u);
	EXPECT_EQ(cm::reserve_bar_after(0, 1500, 1000, cm::poll_backlog_lag(1500, pb.floor_ms(64 * 41))),
		  1500u + 2 * 300);
	// the flood from 1000 on; the flooder's send posted at 2000, held until 2300, taken by
	// the poll at 2300
	pb.reset();
	flood_polls(pb, 1000, 2300);
	const u64 lag = cm::poll_backlog_lag(2300, pb.floor_ms(kDepth));
	EXPECT_EQ(lag, 40u);
	EXPECT_EQ(cm::reserve_bar_after(0, 2300, 2000, lag), 2300u + 2 * 260);
	// a healthy send posted at 2000 during the flood, completed at once, taken 8 polls later
	EXPECT_EQ(cm::reserve_bar_after(0, 2040, 2000, cm::poll_backlog_lag(2040, 2000)), 0u);
	pb.reset();
	flood_polls(pb, 1000, 2040);
	EXPECT_EQ(cm::reserve_bar_after(0, 2040, 2000, cm::poll_backlog_lag(2040, pb.floor_ms(kDepth))), 0u);
	// a poll that empties the CQ ends the backlog and its history; netpoll's takes nothing
	pb.after(2040, 0, 0);
	EXPECT_EQ(pb.since_ms, 1000u);
	pb.after(2045, 10, 64);
	EXPECT_EQ(pb.since_ms, 0u);
	EXPECT_EQ(pb.floor_ms(kDepth), 0u);
	flood_polls(pb, 3000, 3010);	// two polls: fewer than the depth needs
	EXPECT_EQ(pb.floor_ms(kDepth), 3000u);
}

// A CQ deeper than 128 polls at the budget (8192 completions: a non-SRQ CQ past ~128
// connections) still bounds the lag by its turnover (cm::PollBacklog's levels): depth 10000
// at 64 a poll is 157 polls, every 1 ms here. The flooder's send posted at 2000 and held
// until 2300 is late by 300 less the turnover, not hidden by the backlog's start (1000).
// The start found is poll 1136's (1143 exactly, level 3 rounds it down by 7 polls).
KTEST(cm_send_budget, deep_cq_flood_does_not_hide_a_held_send)
{
	static cm::PollBacklog pb;
	constexpr u32 kDepth = 10000;
	pb.reset();
	for (u64 t = 1000; t < 2300; t++)
		pb.after(t, 64, 64);
	EXPECT_EQ(pb.since_ms, 1000u);
	EXPECT_EQ(pb.floor_ms(kDepth), 2136u);
	const u64 lag = cm::poll_backlog_lag(2300, pb.floor_ms(kDepth));
	EXPECT_EQ(lag, 164u);
	EXPECT_EQ(cm::reserve_bar_after(0, 2300, 2000, lag), 2300u + 2 * 136);
	// within the last kPollHistory polls the start is exact
	EXPECT_EQ(pb.floor_ms(512), 2292u);
	// the least budget of the backlog counts: 10000 at 32 a poll is 313 polls
	pb.after(2300, 32, 32);
	EXPECT_EQ(pb.floor_ms(kDepth), 1976u);	// 313 polls back: poll 988, level 4 rounds it to 976
	// deeper than the polls since the backlog began: its start
	pb.reset();
	for (u64 t = 1000; t < 1100; t++)
		pb.after(t, 64, 64);
	EXPECT_EQ(pb.floor_ms(kDepth), 1000u);
}

// An identity echo takes the reserve through its peer's lateness bar (cm::reserve_may_take,
// CmTable::rc_reserve_echo): a reconnect that inherited the bar still proves its peer. The
// interface bound holds for it as for anything else; a barred data send is refused.
KTEST(cm_send_budget, echo_takes_the_reserve_through_a_bar)
{
	cm::ReserveClock<8> c;
	c.inherit(5000);	// the peer's bar, from its previous connection
	ASSERT_TRUE(c.barred(1000));
	ASSERT_FALSE(c.eligible(1000));
	u64 under = 0;
	RcSendBudget b(under);
	b.set_limit(8, 2);
	for (int i = 0; i < 6; i++)
		ASSERT_TRUE(b.take(false) == CmSlot::Ok);	// the shared part used up
	EXPECT_TRUE(b.take(cm::reserve_may_take(false, c.eligible(1000))) == CmSlot::Reserve);
	EXPECT_TRUE(b.take(cm::reserve_may_take(true, c.eligible(1000))) == CmSlot::Ok);
	EXPECT_TRUE(b.take(cm::reserve_may_take(true, c.eligible(1000))) == CmSlot::Ok);
	EXPECT_TRUE(b.take(cm::reserve_may_take(true, c.eligible(1000))) == CmSlot::IfFull);
	EXPECT_TRUE(cm::reserve_may_take(false, true));
	EXPECT_EQ(under, 0u);
}

// The HCA may complete a send before xmit has stored head_ past it (RcTxRing::complete):
// NAPI then reads a head equal to the tail it completes. The completion empties the ring
// (credit 0, the next post is a 0 -> 1), not 0xffffffff sends left with credit kept.
KTEST(cm_send_budget, stale_head_empties_the_ring)
{
	const cm::ReserveAck a = cm::reserve_acked({5, 3}, 7, 7);	// head 7 read, completing 7
	EXPECT_EQ(a.credit, 0u);
	EXPECT_EQ(a.acked_head, 7u);
	EXPECT_EQ(cm::reserve_acked({5, 3}, 8, 7).credit, 0u);	// the last one: emptied
	EXPECT_EQ(cm::reserve_acked({5, 3}, 10, 7).credit, 1u);	// two left, a post since
	EXPECT_EQ(cm::reserve_acked({10, 3}, 10, 7).credit, 4u);	// no post since: the batch grows
	EXPECT_EQ(cm::reserve_acked({5, 3}, 0xffffffffu, 0xffffffffu).credit, 0u);	// stale, at the wrap
	EXPECT_EQ(cm::reserve_acked({1, 3}, 1, 0xffffffffu).credit, 4u);	// across it: one left
	EXPECT_EQ(cm::reserve_acked({5, 3}, 2, 0xffffffffu).credit, 1u);
	EXPECT_EQ(cm::send_outstanding_after(7, 7), 0u);	// and the watchdog's progress input
	EXPECT_EQ(cm::send_outstanding_after(8, 7), 0u);
	EXPECT_EQ(cm::send_outstanding_after(1, 0xffffffffu), 1u);
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

// The once-per-peer fall-back line is set as logged only when it was printed: one the log
// limit left out goes at the peer's next fall-back; the peer is counted once either way.
KTEST(cm_fallback_note, info_line_once_when_printed)
{
	bool seen = false, logged = false;
	FallbackNote n = cm_fallback_note(seen, logged, false);	// the limit is spent
	EXPECT_TRUE(n.first);
	EXPECT_TRUE(n.line == FallbackLine::None);
	EXPECT_FALSE(logged);
	n = cm_fallback_note(seen, logged, true);
	EXPECT_FALSE(n.first);	// counted once
	EXPECT_TRUE(n.line == FallbackLine::Info);
	EXPECT_TRUE(logged);
	n = cm_fallback_note(seen, logged, true);
	EXPECT_FALSE(n.first);
	EXPECT_TRUE(n.line == FallbackLine::Debug);
	n = cm_fallback_note(seen, logged, false);
	EXPECT_TRUE(n.line == FallbackLine::None);
	EXPECT_TRUE(logged);

	bool seen2 = false, logged2 = false;	// printed at once: info, then debug
	n = cm_fallback_note(seen2, logged2, true);
	EXPECT_TRUE(n.first);
	EXPECT_TRUE(n.line == FallbackLine::Info);
	n = cm_fallback_note(seen2, logged2, true);
	EXPECT_FALSE(n.first);
	EXPECT_TRUE(n.line == FallbackLine::Debug);
}

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

// ------------------------------------------------------------------ cm_xmit_rc, CmBacklog

// Peers and the table for cm_xmit_rc: a budget, the wire (which peer's packet, in post
// order), and a table "lock" that checks the order rules: never taken twice, never held
// across a reserve or a post (the kernel's table lock is irqsave; posts take the QP's).
struct QPeer {
	int id = 0;
	kstd::Ring<int, 64> pending;
	u32 held = 0;
	QPeer *bnext = nullptr;
	bool backlogged = false;
	QPeer *cnext = nullptr;
	bool conn_waiting = false;
	u32 cap = 1000;		// its connection's own bound (the send ring)
	u32 inflight = 0;	// posted on its connection, not completed
	bool can_send = true;	// may_flush: its send path may send (not in teardown)
	bool stalled = false;	// its connection may not take the reserve (cm::reserve_eligible false)
	// Static (kernel stack): back to a fresh peer at the start of each case, so a second
	// run of the suite (the KUnit module loaded again) starts from the same state.
	void reset(int ident)
	{
		int v;
		while (pending.pop(v))
			;
		id = ident;
		held = 0;
		bnext = nullptr;
		backlogged = false;
		cnext = nullptr;
		conn_waiting = false;
		cap = 1000;
		inflight = 0;
		can_send = true;
		stalled = false;
	}
};

struct RcX {
	constexpr RcX() : b(under) {}	// constinit: no guard variable in the kernel
	// Static too (4 KiB of wire): every field back to its initial value (a static context
	// keeps the previous run's state otherwise).
	void reset(u32 limit, u32 reserve = 0)
	{
		under = 0;
		b.reset();
		b.set_limit(limit, reserve);
		bl.clear();
		cw.clear();
		nconn_held = nreserve_held = 0;
		locked = nested = nw = nheld = nheld_calls = 0;
		unlocked_ok = true;
		on_post = nullptr;
		for (int i = 0; i < 512; i++)
			wp[i] = wv[i] = 0;
	}
	struct Lock {
		explicit Lock(RcX &x) : x_(x) { x_.nested += x_.locked++ != 0; }
		~Lock() { x_.locked--; }
		RcX &x_;
	};
	Lock guard() { return Lock(*this); }
	CmBacklog<QPeer> &backlog() { return bl; }
	bool may_flush(QPeer &p) { return p.can_send; }
	CmBacklog<QPeer, CmConnLink> &conn_waiters() { return cw; }
	CmSlot reserve(QPeer &p)
	{
		unlocked_ok &= locked == 0;
		if (p.inflight >= p.cap)
			return CmSlot::ConnFull;
		return b.take(!p.stalled);
	}
	void unreserve() { b.unreserve(); }
	void post(QPeer &p, int v)
	{
		unlocked_ok &= locked == 0;
		p.inflight++;
		if (nw < 512) {
			wp[nw] = p.id;
			wv[nw] = v;
			nw++;
		}
		if (on_post)
			on_post(*this, p);	// another context, while the flush posts
	}
	void held(u32 fresh)
	{
		nheld += int(fresh);
		nheld_calls++;
	}
	void conn_held(QPeer &, u32 fresh) { nconn_held += int(fresh); }
	void reserve_held(QPeer &, u32 fresh) { nreserve_held += int(fresh); }
	// n sends of p's connection completed (NAPI: both bounds).
	void complete(QPeer &p, u32 n)
	{
		p.inflight -= n;
		b.complete(n);
	}
	// The lock rules held (never nested, never held across a reserve or a post) and no slot
	// was released twice.
	bool rules_kept() const { return nested == 0 && unlocked_ok && under == 0; }
	// Posted packets of peer id, in post order, are 0, 1, 2, ... and there are n of them.
	bool in_order(int id, int n) const
	{
		int next = 0;
		for (int i = 0; i < nw; i++)
			if (wp[i] == id && wv[i] != next++)
				return false;
		return next == n;
	}
	u64 under = 0;
	RcSendBudget b;
	CmBacklog<QPeer> bl;
	CmBacklog<QPeer, CmConnLink> cw;
	int nconn_held = 0, nreserve_held = 0;
	int locked = 0, nested = 0, nw = 0, nheld = 0, nheld_calls = 0;
	bool unlocked_ok = true;
	void (*on_post)(RcX &, QPeer &) = nullptr;
	int wp[512] = {}, wv[512] = {};
};

// The context and the peers of the cm_xmit_rc and cm_flush_peer cases: static (4 KiB of wire,
// not on the kernel stack), and fresh for each case, so that a second run of the suite (the
// KUnit module loaded again) starts from the same state.
RcX &fresh_x(u32 limit, u32 reserve = 0)
{
	static constinit RcX x;
	x.reset(limit, reserve);
	return x;
}
// With `queued` packets 0, 1, ... on its queue (what waited while its connection was set up).
QPeer &fresh_peer(int i, int id, int queued = 0)
{
	static QPeer p[6];
	p[i].reset(id);
	for (int v = 0; v < queued; v++)
		(void)p[i].pending.push(v);	// at most 64: the tests queue fewer
	return p[i];
}

// Peer B's queue stopped at the bound (its StartSending found the bound
// busy) while peer A keeps it busy: each round NAPI completes 4 sends (rc_sent wakes the
// netdev queue and kicks the flush work) and the qdisc hands xmit 4 packets of A
// before that work runs. B's backlog must drain from xmit in spite of the late work item,
// and every packet of both arrives once, in order (A's are queued, not dropped, when B's
// take the slots first).
KTEST(cm_xmit_rc, backlogged_peer_drains_while_another_saturates)
{
	RcX &x = fresh_x(8);
	QPeer &a = fresh_peer(0, 1), &b = fresh_peer(1, 2);
	int na = 0, nb = 0;
	for (; nb < 20; nb++)	// queued while B's connection was set up
		ASSERT_TRUE(b.pending.push(nb));
	for (int i = 0; i < 8; i++)	// A filled the bound first
		EXPECT_TRUE(cm_xmit_rc(x, a, na++) == CmRcXmit::Sent);
	EXPECT_TRUE(cm_flush_peer(x, b) == CmFlush::IfWait);	// StartSending of B: nothing fits
	EXPECT_EQ(x.bl.waiting(), 1u);
	int round = 0;
	for (; round < 12 && !b.pending.empty(); round++) {
		x.b.complete(4);
		for (int i = 0; i < 4; i++)
			EXPECT_FALSE(cm_xmit_rc(x, a, na++) == CmRcXmit::Full);
	}
	// Drained, and at no less than its fair half of the freed slots while both wait
	// (the backlog takes turns): 20 packets, 2 a round.
	EXPECT_TRUE(b.pending.empty());
	EXPECT_LE(round, 10);
	// The late housekeeping run and the completions: everything goes out.
	for (int i = 0; i < 40 && x.bl.waiting(); i++) {
		x.b.complete(x.b.inflight());
		cm_flush_backlog<QPeer>(x);
	}
	EXPECT_EQ(x.bl.waiting(), 0u);
	EXPECT_TRUE(a.pending.empty());
	EXPECT_TRUE(x.in_order(1, na));
	EXPECT_TRUE(x.in_order(2, nb));
	EXPECT_TRUE(x.rules_kept());
}

// A packet that meets the bound in xmit (the stop/wake race, or the slots a
// backlog took first) waits on its peer's queue, in order, and the peer is listed for the
// next flush; only a full queue refuses it.
KTEST(cm_xmit_rc, at_the_bound_queues_in_order)
{
	RcX &x = fresh_x(2);
	QPeer &a = fresh_peer(0, 1);
	EXPECT_TRUE(cm_xmit_rc(x, a, 0) == CmRcXmit::Sent);
	EXPECT_TRUE(cm_xmit_rc(x, a, 1) == CmRcXmit::Sent);
	EXPECT_TRUE(cm_xmit_rc(x, a, 2) == CmRcXmit::AtBound);
	EXPECT_TRUE(a.backlogged);
	EXPECT_EQ(x.nheld_calls, 1);
	EXPECT_EQ(x.nheld, 1);		// packet 2 was left behind
	int n = 3;
	for (; n < 3 + 64 - 1; n++)	// the queue's capacity
		EXPECT_TRUE(cm_xmit_rc(x, a, n) == CmRcXmit::Queued);
	EXPECT_TRUE(cm_xmit_rc(x, a, 999) == CmRcXmit::Full);
	EXPECT_EQ(a.pending.size(), 64u);
	x.b.complete(1);
	EXPECT_TRUE(cm_xmit_rc(x, a, n++) == CmRcXmit::Queued);	// behind, never ahead
	for (int round = 0; round < 100 && x.bl.waiting(); round++) {	// bounded: a regression fails, not hangs
		x.b.complete(x.b.inflight());
		cm_flush_backlog<QPeer>(x);
	}
	EXPECT_FALSE(x.bl.waiting());
	EXPECT_TRUE(x.in_order(1, n));
	EXPECT_TRUE(x.rules_kept());
}

// q holds exactly from, from + 1, ..., to - 1, in this order (emptied).
template <u32 N> bool pops_in_order(kstd::Ring<int, N> &q, int from, int to)
{
	bool ok = q.size() == u32(to - from);
	for (int v = -1, i = from; q.pop(v); i++)
		ok &= v == i;
	return ok;
}

// A flush posts the oldest packets while the bound has room and stops at the first refusal:
// the refused packet and the rest stay queued, in order (not requeued to the stack, where
// the peer's newer packets would overtake them), and never past the bound.
KTEST(cm_flush_peer, stops_at_the_bound_in_order)
{
	RcX &x = fresh_x(8);
	QPeer &a = fresh_peer(0, 1, 10);
	for (int i = 0; i < 5; i++)
		ASSERT_TRUE(x.b.reserve());	// 5 of 8 already in flight
	EXPECT_TRUE(cm_flush_peer(x, a) == CmFlush::IfWait);
	EXPECT_TRUE(x.in_order(1, 3));		// the oldest first
	EXPECT_EQ(x.b.inflight(), 8u);		// never past the bound
	EXPECT_TRUE(a.backlogged);
	x.b.complete(1);			// a slot frees: the next flush sends 3 first
	EXPECT_TRUE(cm_flush_peer(x, a) == CmFlush::IfWait);
	EXPECT_TRUE(x.in_order(1, 4));
	EXPECT_TRUE(pops_in_order(a.pending, 4, 10));	// the rest, in order
	EXPECT_TRUE(x.rules_kept());
}

// One peer's packets leave in the order they came, across a hand-over flush
// that stops at the RC bound while new packets keep arriving (xmit queues them behind the
// waiting ones), completions free the bound and the flush work continues.
KTEST(cm_flush_peer, peer_order_kept_across_the_bound)
{
	RcX &x = fresh_x(4);
	QPeer &a = fresh_peer(0, 1, 10);
	int next = 10;
	EXPECT_TRUE(cm_flush_peer(x, a) == CmFlush::IfWait);	// StartSending: 4 fit, 6 wait
	EXPECT_EQ(x.nw, 4);
	EXPECT_EQ(a.pending.size(), 6u);
	for (int round = 0; round < 6; round++) {
		EXPECT_FALSE(cm_xmit_rc(x, a, next++) == CmRcXmit::Full);	// new packets while some wait
		EXPECT_FALSE(cm_xmit_rc(x, a, next++) == CmRcXmit::Full);
		x.b.complete(3);	// NAPI: sends completed
		if (round % 2)
			cm_flush_backlog<QPeer>(x);	// the flush work rc_sent kicked
	}
	for (int i = 0; i < 100 && x.bl.waiting(); i++) {
		x.b.complete(x.b.inflight());
		cm_flush_backlog<QPeer>(x);
	}
	EXPECT_TRUE(a.pending.empty());
	EXPECT_TRUE(x.in_order(1, next));	// every packet posted once, in arrival order
	EXPECT_TRUE(x.rules_kept());
}

// FallBack (the table lock alone, from a connection's work item) runs while a
// flush of the same peer is posting over a send path whose teardown has just begun. It must
// find every packet not yet posted, in order: a flush that held the rest outside the peer's
// queue while it posted would leave FallBack an empty queue, and the rest, pushed back
// afterwards, would wait (up to 64) behind the UD packets of the back-off.
namespace l1 {
QPeer *victim;
int posts_before = 0;
kstd::Ring<int, 64> taken;
void fall_back_now(RcX &x, QPeer &p)
{
	if (&p != victim || --posts_before)
		return;
	auto g = x.guard();
	p.can_send = false;	// the connection is draining: may_send(p->send) is false
	(void)cm_take_pending(p, taken);
}
} // namespace l1

KTEST(cm_flush_peer, fall_back_mid_flush_takes_the_rest_in_order)
{
	RcX &x = fresh_x(4);
	QPeer &a = fresh_peer(0, 1);
	int v;
	while (l1::taken.pop(v))
		;
	for (int i = 0; i < 10; i++)
		ASSERT_TRUE(a.pending.push(i));
	l1::victim = &a;
	l1::posts_before = 2;	// FallBack runs while the flush posts its 2nd packet
	x.on_post = l1::fall_back_now;
	EXPECT_TRUE(cm_flush_peer(x, a) == CmFlush::Done);	// nothing of a waits for the bound
	x.on_post = nullptr;
	EXPECT_EQ(x.nw, 2);			// 0 and 1 went out before the teardown
	EXPECT_TRUE(x.in_order(1, 2));
	EXPECT_TRUE(a.pending.empty());		// nothing left behind for later
	EXPECT_FALSE(a.backlogged);
	EXPECT_TRUE(pops_in_order(l1::taken, 2, 10));	// FallBack requeues 2..9, in order
	EXPECT_EQ(x.b.inflight(), 2u);		// the slot reserved for the taken packet came back
	EXPECT_TRUE(x.rules_kept());
}

// A peer whose send path may not send (its teardown began, or datagram mode)
// is not flushed: nothing reserved or posted, its queue kept whole and in order for its
// hand-over, and it leaves the backlog, so that the backlog's round goes on to the next peer.
KTEST(cm_flush_peer, path_in_teardown_is_not_flushed)
{
	RcX &x = fresh_x(4);
	QPeer &a = fresh_peer(0, 1), &b = fresh_peer(1, 2);
	for (int i = 0; i < 6; i++) {
		ASSERT_TRUE(a.pending.push(i));
		ASSERT_TRUE(b.pending.push(i));
	}
	x.bl.add(a);	// both waited for the bound
	x.bl.add(b);
	a.can_send = false;
	cm_flush_backlog<QPeer>(x);
	EXPECT_FALSE(a.backlogged);
	EXPECT_TRUE(pops_in_order(a.pending, 0, 6));	// kept, in order
	EXPECT_TRUE(x.in_order(1, 0));		// nothing of a posted
	EXPECT_TRUE(x.in_order(2, 4));		// b had the slots
	EXPECT_TRUE(b.backlogged);
	EXPECT_EQ(x.b.inflight(), 4u);
	// ... and mid-flush: the path's teardown begins after b's next packet; the rest stays.
	x.b.complete(4);
	l1::victim = &b;
	l1::posts_before = 1;
	x.on_post = [](RcX &, QPeer &p) {
		if (&p == l1::victim && !--l1::posts_before)
			p.can_send = false;	// no FallBack: the hand-over will take the queue
	};
	EXPECT_TRUE(cm_flush_peer(x, b) == CmFlush::Done);
	x.on_post = nullptr;
	EXPECT_TRUE(x.in_order(2, 5));		// 4 went out, 5 stays
	EXPECT_EQ(b.pending.size(), 1u);
	EXPECT_FALSE(b.backlogged);
	EXPECT_EQ(x.b.inflight(), 1u);		// the second slot was given back
	EXPECT_TRUE(x.rules_kept());
}

// cm_tx_flush_held counts packets a flush left behind at the bound, each once however many
// flushes it waits through (not the flushes that stopped).
KTEST(cm_flush_peer, held_counts_each_packet_once)
{
	int n = 20;	// queued while the connection was set up
	QPeer &a = fresh_peer(0, 1, n);
	RcX &x = fresh_x(8);
	EXPECT_TRUE(cm_flush_peer(x, a) == CmFlush::IfWait);	// StartSending: 8 go, 12 held
	EXPECT_EQ(x.nheld, 12);
	x.b.complete(4);
	EXPECT_TRUE(cm_flush_peer(x, a) == CmFlush::IfWait);	// 4 more go, the same 8 still held
	EXPECT_EQ(x.nheld, 12);
	for (int i = 0; i < 3; i++)		// 3 new ones queue behind them: held at once
		EXPECT_TRUE(cm_xmit_rc(x, a, n++) == CmRcXmit::Queued);
	EXPECT_EQ(x.nheld, 15);
	EXPECT_GE(x.nheld_calls, 5);		// one per stop: not what the counter counts
	// A take that stops when its queue is full (mode_changed's batches): 4 of the 11 go,
	// and so does their mark: the 7 left are all counted already.
	kstd::Ring<int, 4> part;
	EXPECT_FALSE(cm_take_pending(a, part));
	EXPECT_EQ(a.pending.size(), 7u);
	EXPECT_EQ(a.held, 7u);
	x.b.complete(8);
	EXPECT_TRUE(cm_flush_peer(x, a) == CmFlush::Done);
	EXPECT_EQ(x.nheld, 15);			// the 7 left went out: nothing new
	EXPECT_TRUE(a.pending.empty());
	EXPECT_EQ(a.held, 0u);
	EXPECT_TRUE(x.rules_kept());
}

// Peer C's connection stalls (nothing completes) at its own bound of 4 while the interface
// bound is 12: C's packets wait on its own queue (and are refused only when that is full),
// the interface bound never fills, and B's packets go out at once the whole time: no peer
// stops the netdev queue. C waits on the connection waiters, not the backlog, so xmit never
// retries it.
KTEST(cm_conn_bound, stalled_connection_holds_only_its_own_peer)
{
	RcX &x = fresh_x(12);
	QPeer &b = fresh_peer(0, 1), &c = fresh_peer(1, 2);
	b.cap = c.cap = 4;
	int nb = 0, nc = 0;
	for (; nc < 4; nc++)
		EXPECT_TRUE(cm_xmit_rc(x, c, nc) == CmRcXmit::Sent);
	EXPECT_TRUE(cm_xmit_rc(x, c, nc++) == CmRcXmit::ConnWait);
	EXPECT_EQ(x.cw.waiting(), 1u);
	for (; nc < 5 + 63; nc++)
		EXPECT_TRUE(cm_xmit_rc(x, c, nc) == CmRcXmit::Queued);
	EXPECT_TRUE(cm_xmit_rc(x, c, 999) == CmRcXmit::Full);	// its queue is full: dropped
	EXPECT_EQ(x.nconn_held, 64);	// each waiting packet counted once
	EXPECT_EQ(x.bl.waiting(), 0u);
	EXPECT_FALSE(x.b.full());
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 4; i++)
			EXPECT_TRUE(cm_xmit_rc(x, b, nb++) == CmRcXmit::Sent);
		x.complete(b, 4);	// B completes; C does not
		cm_flush_conn_waiters<QPeer>(x);	// the flush work an RC completion kicked
	}
	EXPECT_EQ(c.pending.size(), 64u);
	EXPECT_EQ(x.cw.waiting(), 1u);
	EXPECT_TRUE(x.in_order(1, nb));
	EXPECT_TRUE(x.rules_kept());
}

// The stalled connection completes again: its own completions let its queue out, in order,
// as far as its bound allows each time, and it leaves the waiters once empty.
KTEST(cm_conn_bound, own_completions_flush_own_queue_in_order)
{
	RcX &x = fresh_x(12);
	QPeer &c = fresh_peer(1, 2, 10);
	c.cap = 4;
	EXPECT_TRUE(cm_flush_peer(x, c) == CmFlush::ConnWait);	// StartSending: 4 go, 6 wait
	EXPECT_EQ(x.nconn_held, 6);
	EXPECT_EQ(x.nheld, 0);
	x.complete(c, 1);
	cm_flush_conn_waiters<QPeer>(x);	// exactly one more
	EXPECT_EQ(c.pending.size(), 5u);
	EXPECT_EQ(x.cw.waiting(), 1u);
	for (int i = 0; i < 4 && x.cw.waiting(); i++) {
		x.complete(c, c.inflight);
		cm_flush_conn_waiters<QPeer>(x);
	}
	EXPECT_TRUE(c.pending.empty());
	EXPECT_EQ(x.cw.waiting(), 0u);
	EXPECT_FALSE(c.conn_waiting);
	EXPECT_TRUE(x.in_order(2, 10));
	EXPECT_EQ(x.nconn_held, 6);	// none counted twice
	EXPECT_TRUE(x.rules_kept());
}

// A backlog round (the interface bound freed) meets a peer whose connection is at its own
// bound: that peer moves to the connection waiters and the round goes on to the peer behind
// it, which a stalled one at the front must not hold back.
KTEST(cm_conn_bound, backlog_round_passes_a_peer_at_its_own_bound)
{
	RcX &x = fresh_x(6);
	QPeer &c = fresh_peer(0, 1, 8), &b = fresh_peer(1, 2, 8), &a = fresh_peer(2, 3);
	c.cap = 4;
	for (int i = 0; i < 6; i++)
		EXPECT_TRUE(cm_xmit_rc(x, a, i) == CmRcXmit::Sent);	// A fills the interface bound
	EXPECT_TRUE(cm_flush_peer(x, c) == CmFlush::IfWait);
	EXPECT_TRUE(cm_flush_peer(x, b) == CmFlush::IfWait);
	EXPECT_EQ(x.bl.waiting(), 2u);
	x.complete(a, 6);
	cm_flush_backlog<QPeer>(x);	// C: 4 go, then its own bound; B: 2 go, interface full
	EXPECT_EQ(c.inflight, 4u);
	EXPECT_EQ(b.inflight, 2u);
	EXPECT_EQ(x.cw.waiting(), 1u);
	EXPECT_EQ(x.bl.waiting(), 1u);
	EXPECT_TRUE(x.bl.front() == &b);
	EXPECT_FALSE(c.backlogged);
	EXPECT_TRUE(x.rules_kept());
}

// ------------------------------------------------------------------ the reserve

// Four connections stall (nothing completes) while each is at its own bound of 4, with an
// interface bound of 16 (four rings) and a reserve of one ring: the stalled ones fill only the
// shared 12, the fourth one's packets wait on its own queue (counted at the reserve, not in
// the backlog), and a healthy peer B keeps sending at once the whole time, its completions
// freeing its slots. Without the reserve (the old rule) the four fill the bound and every
// packet of B waits (AtBound): the case fails.
KTEST(cm_send_reserve, stalled_connections_leave_a_ring_to_a_healthy_peer)
{
	RcX &x = fresh_x(16, 4);
	QPeer *st[4];
	for (int i = 0; i < 4; i++) {
		st[i] = &fresh_peer(i, 10 + i);
		st[i]->cap = 4;
	}
	QPeer &b = fresh_peer(4, 1);
	b.cap = 4;
	int n[4] = {};
	for (int i = 0; i < 3; i++)	// three fill their rings while they look healthy
		for (; n[i] < 4; n[i]++)
			EXPECT_TRUE(cm_xmit_rc(x, *st[i], n[i]) == CmRcXmit::Sent);
	for (int i = 0; i < 4; i++)	// then their send clocks show no progress
		st[i]->stalled = true;
	EXPECT_TRUE(cm_xmit_rc(x, *st[3], n[3]++) == CmRcXmit::ReserveWait);
	for (; n[3] < 10; n[3]++)
		EXPECT_TRUE(cm_xmit_rc(x, *st[3], n[3]) == CmRcXmit::Queued);
	EXPECT_EQ(x.nreserve_held, 10);	// each waiting packet counted once
	EXPECT_EQ(x.b.inflight(), 12u);
	EXPECT_TRUE(st[3]->conn_waiting);
	EXPECT_FALSE(st[3]->backlogged);
	int nb = 0;
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 4; i++)
			EXPECT_TRUE(cm_xmit_rc(x, b, nb++) == CmRcXmit::Sent);
		x.complete(b, 4);
		cm_flush_conn_waiters<QPeer>(x);	// an RC completion kicked the flush work
	}
	EXPECT_EQ(st[3]->pending.size(), 10u);	// still refused: no shared slot freed
	EXPECT_TRUE(x.in_order(1, nb));
	EXPECT_EQ(x.nheld, 0);	// nothing met the interface bound
	// A stalled connection's watchdog teardown frees shared slots: the waiting one goes on
	// (up to the shared part again), from the flush work, in order.
	x.complete(*st[0], 4);
	cm_flush_conn_waiters<QPeer>(x);
	EXPECT_EQ(st[3]->inflight, 4u);
	EXPECT_TRUE(x.in_order(13, 4));
	EXPECT_EQ(x.b.inflight(), 12u);
	EXPECT_TRUE(x.rules_kept());
}

// A connection that is not making progress is refused only the reserve: below it, it sends
// as any other (it may still be a peer that is merely slow), and once it makes progress
// again it takes the reserve too.
KTEST(cm_send_reserve, refused_only_the_reserve_and_only_while_stalled)
{
	RcX &x = fresh_x(8, 2);
	QPeer &c = fresh_peer(0, 1);
	c.stalled = true;
	int v = 0;
	for (; v < 6; v++)
		EXPECT_TRUE(cm_xmit_rc(x, c, v) == CmRcXmit::Sent);
	EXPECT_TRUE(cm_xmit_rc(x, c, v++) == CmRcXmit::ReserveWait);
	EXPECT_EQ(x.b.inflight(), 6u);
	c.stalled = false;	// a completion batch was progress
	x.complete(c, 1);	// ... and that completion kicked the flush work
	cm_flush_conn_waiters<QPeer>(x);
	EXPECT_EQ(x.b.inflight(), 6u);	// its one waiting packet went, into the freed slot
	EXPECT_TRUE(cm_xmit_rc(x, c, v++) == CmRcXmit::Sent);	// the reserve: progressing
	EXPECT_TRUE(cm_xmit_rc(x, c, v++) == CmRcXmit::Sent);
	EXPECT_TRUE(cm_xmit_rc(x, c, v++) == CmRcXmit::AtBound);	// the whole bound
	EXPECT_FALSE(c.conn_waiting);
	EXPECT_TRUE(c.backlogged);
	EXPECT_EQ(x.nreserve_held, 1);
	EXPECT_TRUE(x.rules_kept());
}

// A backlog round (the interface bound freed) meets, at its front, a peer whose connection
// is refused the reserve: that one moves to the connection waiters and the round goes on to
// the healthy peer behind it (a stalled peer at the front must not end the round).
KTEST(cm_send_reserve, backlog_round_passes_a_peer_refused_the_reserve)
{
	RcX &x = fresh_x(8, 2);
	QPeer &a = fresh_peer(0, 1), &c = fresh_peer(1, 2, 4), &b = fresh_peer(2, 3, 4);
	for (int i = 0; i < 8; i++)
		EXPECT_TRUE(cm_xmit_rc(x, a, i) == CmRcXmit::Sent);	// A fills the bound
	EXPECT_TRUE(cm_flush_peer(x, c) == CmFlush::IfWait);
	EXPECT_TRUE(cm_flush_peer(x, b) == CmFlush::IfWait);
	c.stalled = true;
	x.complete(a, 2);	// two slots free, both in the reserve
	cm_flush_backlog<QPeer>(x);
	EXPECT_TRUE(c.conn_waiting);
	EXPECT_FALSE(c.backlogged);
	EXPECT_EQ(c.inflight, 0u);
	EXPECT_EQ(b.inflight, 2u);	// B had them
	EXPECT_TRUE(x.in_order(3, 2));
	EXPECT_TRUE(b.backlogged);	// its other two wait for the bound
	EXPECT_TRUE(x.rules_kept());
}

// ------------------------------------------------------------------ who may take the reserve

// A millisecond-stepped model of the interface bound over real eligibility: kSimConns
// connections, each with its own ring (ReserveClock, its send bound), the bound of four rings
// with a reserve of one, and the send watchdog (SendClock: a connection it judges stalled is
// torn down, its sends flushed). Connections 0..3 are an attacker's, kSimH a healthy peer,
// kSimNewQpn a connection to connection 3's port under another UD QPN (another CmPeer, the
// same GID), used only by the cases that open it.
inline constexpr u32 kSimRing = 32;
inline constexpr int kSimConns = 6, kSimH = 4, kSimNewQpn = 5;
struct ReserveSim {
	constexpr ReserveSim() : b(under) {}
	u64 under = 0;
	RcSendBudget b;
	cm::ReserveClock<kSimRing> rc[kSimConns] = {};
	cm::SendClock sc[kSimConns] = {};
	u64 peer_bar[kSimConns] = {};	// CmPeer::reserve_bar_until of each connection's peer
	cm::GidBars<cm::kGidBars> gid_bars = {};	// CmTable's bars by GID
	u32 torn_down = 0;
	void reset()
	{
		under = 0;
		b.reset();
		b.set_limit(rc_iface_bound(kSimRing), rc_iface_reserve(kSimRing));
		for (int i = 0; i < kSimConns; i++) {
			rc[i] = {};
			sc[i] = {};
			peer_bar[i] = 0;
		}
		gid_bars = {};
		torn_down = 0;
	}
	bool eligible(int i, u64 now) const { return rc[i].eligible(now); }
	// one send of connection i: its own ring, then the interface bound (rc_reserve's order)
	CmSlot post(int i, u64 now)
	{
		if (rc[i].outstanding() >= kSimRing)
			return CmSlot::ConnFull;
		const CmSlot r = b.take(eligible(i, now));
		if (r == CmSlot::Ok) {
			rc[i].posted(now);
			sc[i].posted(1, now);
		}
		return r;
	}
	// as many as the bounds let it (a flood: our replies to its pings)
	void flood(int i, u64 now)
	{
		while (post(i, now) == CmSlot::Ok)
			;
	}
	// its n oldest sends completed (in order)
	void complete(int i, u32 n, u64 now)
	{
		n = n < rc[i].outstanding() ? n : rc[i].outstanding();
		if (!n)
			return;
		rc[i].completed(n, now);
		sc[i].completed(n, now);
		b.complete(n);
	}
	// the housekeeping work's watchdog: teardown flushes the ring
	void watchdog(u64 now)
	{
		for (int i = 0; i < kSimConns; i++)
			if (sc[i].stalled(now)) {
				torn_down++;
				complete(i, rc[i].outstanding(), now);
			}
	}
	// the peer's DREQ: the connection goes (its sends flushed, their slots back), the ring's
	// bar stays with the peer (retire's reserve_bar_fold) and with its GID (CmTable's
	// GidBars), and xmit connects again at once (no FallBack): a fresh ring, which starts
	// from the peer's bar. new_qpn: the peer recreated its UD QP and announced the new QPN
	// first, so the new connection's peer is a new entry (CmPeer is keyed by QPN + GID),
	// created with its GID's bar (CmTable::find_or_add).
	void dreq(int i, u64 now, bool new_qpn = false)
	{
		peer_bar[i] = cm::reserve_bar_fold(peer_bar[i], rc[i].ended(now));
		gid_bar_keep(i, now);
		b.complete(rc[i].outstanding());
		rc[i] = {};
		sc[i] = {};
		if (new_qpn)
			peer_bar[i] = gid_bar(i, now);
		rc[i].inherit(peer_bar[i]);
	}
	// connection i's peer's GID (each connection's peer a port of its own; kSimNewQpn's
	// is 3's)
	static const u8 *gid(int i)
	{
		static u8 g[kSimConns][kGidLen];
		i = i == kSimNewQpn ? 3 : i;
		g[i][15] = u8(i + 1);
		return g[i];
	}
	// The port of connection 3 announced a new UD QPN and a connection j is opened to it
	// (a new CmPeer entry: CmTable::find_or_add, then connect), while 3 lives on: the
	// entry starts from its GID's bar (CmTable::gid_bar_inherit).
	void connect_new_qpn(int j, u64 now)
	{
		rc[j] = {};
		sc[j] = {};
		peer_bar[j] = gid_bar(j, now);
		rc[j].inherit(peer_bar[j]);
	}
	// CmTable::gid_bar_inherit: the GID's kept bar and what each live connection of the
	// GID stands for now (cm::reserve_bar_live), j's own included
	u64 gid_bar(int j, u64 now) const
	{
		u64 bar = gid_bars.bar(gid(j), now);
		for (int k = 0; k < kSimConns; k++)
			if (bytes_equal(gid(k), gid(j), kGidLen))
				bar = cm::reserve_bar_fold(bar, cm::reserve_bar_live(rc[k].bar_until_ms, now, rc[k].outstanding(),
										      sc[k].no_progress_ms(now)));
		return bar;
	}
	// CmTable::gid_bar_keep: a retired ring's peer bar to the GID and to every live
	// connection of the GID (and its peer)
	void gid_bar_keep(int i, u64 now)
	{
		gid_bars.note(gid(i), peer_bar[i], now);
		for (int k = 0; k < kSimConns; k++)
			if (k != i && bytes_equal(gid(k), gid(i), kGidLen)) {
				peer_bar[k] = cm::reserve_bar_fold(peer_bar[k], peer_bar[i]);
				rc[k].inherit(peer_bar[i]);
			}
	}
	// 0..2 hold the shared rings: everything completed, late, `hold` after they took it
	// (just before their watchdog: progress, never torn down), then taken again
	void hold_shared(u64 now, u64 &since, u64 hold)
	{
		if (now != since + hold)
			return;
		for (int i = 0; i < 3; i++)
			complete(i, kSimRing, now);
		since = now;
	}
	u32 attacker_inflight() const
	{
		u32 n = 0;
		for (int i = 0; i < kSimH; i++)
			n += rc[i].outstanding();
		return n;
	}
};
static ReserveSim g_sim;

// Trickle: four connections each complete 8 sends per 450 ms (the peer RNR NAKs the rest with
// its longest delay) while we always have more for them. By a "progress within 500 ms" rule
// each always counts as progressing, the four hold the whole bound, reserve included, and the
// watchdog never fires (8 completions per 10 s suffice): the healthy peer H, one send a
// millisecond completing the next, is refused every time. With the head-of-line rule their
// oldest sends age past cm::kReserveHolMs at once: they hold the shared three rings plus at
// most cm::kReserveUnacked + 1 each, and H is never refused.
KTEST(cm_send_reserve, trickling_peers_do_not_hold_the_reserve)
{
	ReserveSim &x = g_sim;
	x.reset();
	u32 h_refused = 0, h_sent = 0, max_att = 0;
	for (u64 t = 1; t <= 12000; t++) {
		x.complete(kSimH, kSimRing, t);	// H's peer completes what was posted before
		if (t % 450 == 0)
			for (int i = 0; i < kSimH; i++)
				x.complete(i, 8, t);
		x.watchdog(t);
		for (int i = 0; i < kSimH; i++)
			x.flood(i, t);
		if (x.post(kSimH, t) == CmSlot::Ok)
			h_sent++;
		else
			h_refused++;
		if (x.attacker_inflight() > max_att)
			max_att = x.attacker_inflight();
	}
	EXPECT_EQ(h_refused, 0u);
	EXPECT_EQ(h_sent, 12000u);
	EXPECT_EQ(x.torn_down, 0u);	// the watchdog does not see them: the reserve rule must
	EXPECT_TRUE(max_att <= 3 * kSimRing + kSimH * (cm::kReserveUnacked + 1));
	EXPECT_EQ(x.under, 0u);
}

// Flip: four connections deliver (our replies to the attacker's pings complete within a
// millisecond), then all at once their peers RNR NAK for ever while the pings go on, so our
// replies fill their rings within a millisecond. By the old rule each clock is young (reset
// by the 0 -> 1 post) and they take the whole bound, reserve included, until the watchdog
// 10 s later. With no credit before a first completion each takes at most
// cm::kReserveUnacked + 1 of the reserve, and H is never refused. (A ring that never empties
// up to the flip is not covered: cm::reserve_eligible, docs/security.md.)
KTEST(cm_send_reserve, flipping_peers_do_not_take_the_reserve)
{
	ReserveSim &x = g_sim;
	x.reset();
	const u64 kFlip = 1000;
	u32 h_refused = 0, max_att = 0;
	for (u64 t = 1; t <= 4000; t++) {
		x.complete(kSimH, kSimRing, t);
		if (t < kFlip)
			for (int i = 0; i < kSimH; i++)	// delivering: what was posted before
				x.complete(i, kSimRing, t);
		x.watchdog(t);
		for (int i = 0; i < kSimH; i++) {
			if (t < kFlip) {
				for (int k = 0; k < 2; k++)
					EXPECT_TRUE(x.post(i, t) == CmSlot::Ok);
			} else {
				x.flood(i, t);
			}
		}
		if (x.post(kSimH, t) != CmSlot::Ok)
			h_refused++;
		if (x.attacker_inflight() > max_att)
			max_att = x.attacker_inflight();
	}
	EXPECT_EQ(h_refused, 0u);
	EXPECT_EQ(x.torn_down, 0u);	// within 3 s of the flip: before the watchdog
	EXPECT_TRUE(max_att <= 3 * kSimRing + kSimH * (cm::kReserveUnacked + 1));
	EXPECT_EQ(x.under, 0u);
}

// The reserve attack models' run, one millisecond a step: H's peer completes what was posted
// before, 0..2 hold the shared rings (hold_shared), the model's peer of connection 3 acts
// (acts(t): its completions, its DREQ; true while the model says its peer is barred), the
// watchdog, 0..2 take what they can, 3 posts (posts(t)), then H posts one. Counted: H's
// refusals, the attacker's largest total in flight, and what 3 took while barred.
struct HoldRun {
	u32 h_refused = 0, max_att = 0, while_barred = 0;
};
template <typename Acts, typename Posts> HoldRun hold_run(ReserveSim &x, u64 end, u64 hold, Acts acts, Posts posts)
{
	HoldRun r;
	u64 shared_at = 1;
	for (u64 t = 1; t <= end; t++) {
		x.complete(kSimH, kSimRing, t);
		x.hold_shared(t, shared_at, hold);
		const bool barred = acts(t);
		x.watchdog(t);
		for (int i = 0; i < 3; i++)
			x.flood(i, t);
		const u32 before = x.rc[3].outstanding();
		posts(t);
		if (barred)
			r.while_barred += x.rc[3].outstanding() - before;
		if (x.post(kSimH, t) != CmSlot::Ok)
			r.h_refused++;
		if (x.attacker_inflight() > r.max_att)
			r.max_att = x.attacker_inflight();
	}
	return r;
}

// Prompt once, then hold: connections 0..2 hold the shared three rings and complete all of
// it just before their watchdog (progress: they are never torn down) and take it again; 3
// posts two sends, its peer completes the first within a millisecond and then holds
// everything until just before the watchdog, and does it again. By the rule that a
// completion with sends still outstanding is credit for the whole ring, 3 takes the whole
// reserve a millisecond after each prompt completion and holds it ~10 s: H is refused for
// nearly all of the run. With credit per completion batch (the batch's size plus
// cm::kReserveUnacked) 3 takes at most a few of the reserve, and its late completion bars
// it for cm::kSendWatchdogMs: within that period after its late completion it takes
// nothing (the round after it begins inside the bar).
KTEST(cm_send_reserve, prompt_once_then_hold_does_not_drain_the_reserve)
{
	ReserveSim &x = g_sim;
	x.reset();
	const u64 kHold = cm::kSendWatchdogMs - 100, kEnd = 3 * cm::kSendWatchdogMs;
	u64 round_at = 1, late_at = 0;
	const HoldRun r = hold_run(
		x, kEnd, kHold,
		[&](u64 t) {
			if (t == round_at + 1)		// 3: its first send, promptly
				x.complete(3, 1, t);
			if (t == round_at + kHold) {	// 3: the rest, late, before the watchdog; again
				if (x.rc[3].outstanding())
					late_at = t;
				x.complete(3, kSimRing, t);
				round_at = t + 1;
			}
			return late_at && t < late_at + cm::kSendWatchdogMs;
		},
		[&](u64 t) {
			if (t == round_at)
				for (int k = 0; k < 2; k++)
					(void)x.post(3, t);
			else if (t > round_at)
				x.flood(3, t);
		});
	EXPECT_EQ(r.h_refused, 0u);
	EXPECT_EQ(x.torn_down, 0u);
	EXPECT_EQ(r.while_barred, 0u);	// barred by its late completion
	EXPECT_TRUE(r.max_att <= 3 * kSimRing + 2 * (cm::kReserveUnacked + 1));
	EXPECT_EQ(x.under, 0u);
}

// DREQ and reconnect: connections 0..2 hold the shared three rings (as above); 3's peer
// completes promptly all but the newest send each millisecond for 20 ms from its first post
// (a batch's credit grows the ring to all of it, the reserve), then holds everything
// ~9.9 s and sends a DREQ instead of completing: the established connection goes without
// FallBack and xmit connects again at once. A bar kept in the ring alone starts the new
// ring unbarred: it takes the reserve again within milliseconds and H is refused nearly all
// of the run. With the bar kept on the peer (the teardown's head of line, ~9.9 s old, is a
// late completion at that moment) the new ring is barred for cm::kSendWatchdogMs from the
// DREQ: it takes nothing of the reserve in that period (what stays open: the round after
// the bar, once per bar). new_qpn: before each DREQ the peer recreates its UD QP and
// announces the new QPN, so each reconnect is to a new peer entry: the bar must reach it
// by the GID (a bar kept on the entry alone starts it unbarred: 3 took 1864 slots while
// barred and H was refused 39950 of 40000 ms).
static void dreq_and_reconnect(ktest_ctx *kt, bool new_qpn)
{
	ReserveSim &x = g_sim;
	x.reset();
	const u64 kHold = cm::kSendWatchdogMs - 100, kEnd = 4 * cm::kSendWatchdogMs;
	u32 dreqs = 0;
	u64 grow_from = 0, dreq_at = 0;
	const HoldRun r = hold_run(
		x, kEnd, kHold,
		[&](u64 t) {
			if (grow_from && t < grow_from + 20 && x.rc[3].outstanding() > 1)
				x.complete(3, x.rc[3].outstanding() - 1, t);
			if (grow_from && t == grow_from + kHold) {
				x.dreq(3, t, new_qpn);
				dreq_at = t;
				dreqs++;
				grow_from = 0;
			}
			return dreq_at && t < dreq_at + cm::kSendWatchdogMs;
		},
		[&](u64 t) {
			x.flood(3, t);
			if (!grow_from && x.rc[3].outstanding())
				grow_from = t;
		});
	EXPECT_GE(dreqs, 2u);
	EXPECT_EQ(r.while_barred, 0u);
	// By design the reserve is held for the hold (kSendWatchdogMs - 100 ms, after ~20 ms of
	// growth) of each cycle of hold, DREQ and bar (kSendWatchdogMs): just under one half
	// (49.7% measured); 52% leaves two points of margin.
	EXPECT_LT(r.h_refused, u32(kEnd * 52 / 100));
	EXPECT_EQ(x.torn_down, 0u);
	EXPECT_EQ(x.under, 0u);
}

KTEST(cm_send_reserve, dreq_and_reconnect_keep_the_bar)
{
	dreq_and_reconnect(kt, false);
}

KTEST(cm_send_reserve, new_qpn_keeps_the_gid_bar)
{
	dreq_and_reconnect(kt, true);
}

// The port of an attacker's connection (3) that took what it could of the reserve and holds
// it announces a new UD QPN, and a connection is opened to the new address (another CmPeer
// entry, the same GID) while 3 still holds: 3's bar has not reached the GID's (that is at
// its retire), yet the new connection must not take the reserve again. Its peer entry
// starts from the bar 3 stands for now, its hold counted late (cm::reserve_bar_live over
// the live connections of the GID, CmTable::gid_bar_inherit).
KTEST(cm_send_reserve, new_qpn_while_the_old_connection_holds)
{
	ReserveSim &x = g_sim;
	x.reset();
	for (int i = 0; i < 3; i++)
		x.flood(i, 1);	// 0..2 hold the shared rings
	x.flood(3, 1);
	EXPECT_EQ(x.rc[3].outstanding(), cm::kReserveUnacked + 1);	// from idle: no more
	const u64 t = 1 + 200;	// 3 held its sends for 200 ms, never completing one
	x.connect_new_qpn(kSimNewQpn, t);
	x.flood(kSimNewQpn, t);
	EXPECT_EQ(x.rc[kSimNewQpn].outstanding(), 0u);
	EXPECT_TRUE(x.rc[kSimNewQpn].barred(t));
	EXPECT_FALSE(x.rc[kSimNewQpn].barred(t + 2 * 200));	// twice the hold, as a late completion
	EXPECT_TRUE(x.post(kSimH, t) == CmSlot::Ok);
	EXPECT_EQ(x.under, 0u);
}

// The connection to the new UD QPN was opened while 3 was still prompt (nothing to inherit),
// then 3 holds its sends for 5 s and is retired (its peer's DREQ): its bar goes to its peer,
// to the GID, and to every live connection of that GID (CmTable::gid_bar_keep), so the new
// connection is barred from then on, as 3's own next connection would be.
KTEST(cm_send_reserve, retire_bars_the_live_connections_of_the_gid)
{
	ReserveSim &x = g_sim;
	x.reset();
	for (int i = 0; i < 3; i++)
		x.flood(i, 1);
	x.connect_new_qpn(kSimNewQpn, 1);
	EXPECT_FALSE(x.rc[kSimNewQpn].barred(1));
	x.flood(3, 1);
	const u64 t = 1 + 5000;
	x.dreq(3, t);
	x.flood(kSimNewQpn, t + 1);
	EXPECT_EQ(x.rc[kSimNewQpn].outstanding(), 0u);
	EXPECT_TRUE(x.rc[kSimNewQpn].barred(t + cm::kSendWatchdogMs - 1));
	EXPECT_FALSE(x.rc[kSimNewQpn].barred(t + cm::kSendWatchdogMs));
	EXPECT_EQ(x.under, 0u);
}

// The bars by GID (cm::GidBars): one per GID, never lowered, an ended one is free; when all
// are in force the one that ends first goes (the new one when it ends first), said by
// note()'s false.
KTEST(cm_send_reserve, gid_bars_keep_the_longest)
{
	static cm::GidBars<4> g;
	g = {};
	u8 a[kGidLen] = {}, b[kGidLen] = {};
	a[15] = 1;
	b[15] = 2;
	EXPECT_EQ(g.bar(a, 100), 0u);
	EXPECT_TRUE(g.note(a, 50, 100));	// ended already: nothing kept
	EXPECT_EQ(g.bar(a, 100), 0u);
	EXPECT_TRUE(g.note(a, 1000, 100));
	EXPECT_TRUE(g.note(a, 500, 100));	// never lowered
	EXPECT_EQ(g.bar(a, 100), 1000u);
	EXPECT_EQ(g.bar(b, 100), 0u);
	EXPECT_EQ(g.bar(a, 1000), 0u);		// ended
	u8 o[kGidLen] = {};
	for (u8 i = 0; i < 3; i++) {
		o[15] = u8(10 + i);
		EXPECT_TRUE(g.note(o, 2000 + i, 100));	// the free entries
	}
	EXPECT_FALSE(g.note(b, 900, 100));	// full, and it ends first: dropped
	EXPECT_EQ(g.bar(b, 100), 0u);
	EXPECT_EQ(g.bar(a, 100), 1000u);
	EXPECT_FALSE(g.note(b, 3000, 100));	// a's bar (the first to end) goes
	EXPECT_EQ(g.bar(a, 100), 0u);
	EXPECT_EQ(g.bar(b, 100), 3000u);
	EXPECT_TRUE(g.note(a, 2500, 2001));	// o10's ended (2000): its entry is free
	EXPECT_EQ(g.bar(a, 2001), 2500u);
	EXPECT_EQ(g.bar(b, 2001), 3000u);
}

// Healthy, steady: three stalled connections hold the shared rings; H has two sends a
// millisecond and its peer completes each 5 ms after its post (a slow TCG guest). From idle
// its first sends wait for its first completion (at most cm::kReserveUnacked + 1 before it);
// from then on its head of line is under 5 ms old and each millisecond's completions let that
// millisecond's sends go at once, the few left from the start included: after the first
// 100 ms nothing waits.
KTEST(cm_send_reserve, steady_completions_keep_the_reserve)
{
	ReserveSim &x = g_sim;
	x.reset();
	for (int i = 0; i < 3; i++)
		x.flood(i, 1);
	EXPECT_EQ(x.b.inflight(), 3 * kSimRing);
	u32 pending = 0, max_pending = 0, late = 0;
	for (u64 t = 1; t <= 5000; t++) {
		cm::ReserveClock<kSimRing> &h = x.rc[kSimH];
		u32 due = 0;	// outstanding sends posted 5 ms ago or earlier complete now
		while (due < h.outstanding() && h.post_ms[(h.tail + due) & (kSimRing - 1)] + 5 <= t)
			due++;
		x.complete(kSimH, due, t);
		pending += 2;
		while (pending && x.post(kSimH, t) == CmSlot::Ok)
			pending--;
		if (pending > max_pending)
			max_pending = pending;
		if (t >= 100 && pending)
			late++;
	}
	EXPECT_EQ(late, 0u);
	EXPECT_TRUE(max_pending <= 10);
	EXPECT_EQ(x.rc[kSimH].outstanding(), 10u);	// 5 ms of sends in flight
	EXPECT_EQ(x.b.inflight(), 3 * kSimRing + 10);
}

// Healthy, a burst from idle while the shared rings are held: the first
// cm::kReserveUnacked + 1 go at once, the rest as the peer completes them (each completion
// lets the next few go: rc_sent kicks the flush work), all of a burst of 10 within 4 ms on
// a peer that completes in 1 ms; idle again, the next burst starts the same way.
KTEST(cm_send_reserve, burst_from_idle_goes_as_it_completes)
{
	ReserveSim &x = g_sim;
	x.reset();
	for (int i = 0; i < 3; i++)
		x.flood(i, 1);
	for (u64 start = 100; start <= 300; start += 100) {
		u32 left = 10;
		u64 t = start;
		for (; left && t < start + 50; t++) {
			x.complete(kSimH, kSimRing, t);
			while (left && x.post(kSimH, t) == CmSlot::Ok)
				left--;
			if (t == start)
				EXPECT_EQ(left, 10 - (cm::kReserveUnacked + 1));
		}
		EXPECT_EQ(left, 0u);
		EXPECT_TRUE(t <= start + 4);
		x.complete(kSimH, kSimRing, t);	// and it goes idle
	}
	EXPECT_EQ(x.b.inflight(), 3 * kSimRing);
}

// The backlog is a FIFO of peers, each at most once; remove() unlinks any of them.
KTEST(cm_backlog, fifo_once_and_remove)
{
	CmBacklog<QPeer> bl;
	static QPeer p[4];
	for (int i = 0; i < 4; i++)
		p[i].reset(i);
	for (QPeer &q : p)
		bl.add(q);
	bl.add(p[1]);	// listed already
	EXPECT_EQ(bl.waiting(), 4u);
	EXPECT_TRUE(bl.remove(p[3]));	// the tail
	EXPECT_FALSE(bl.remove(p[3]));
	EXPECT_TRUE(bl.remove(p[1]));	// the middle
	bl.add(p[3]);
	EXPECT_TRUE(bl.pop() == &p[0]);
	EXPECT_TRUE(bl.pop() == &p[2]);
	EXPECT_TRUE(bl.pop() == &p[3]);
	EXPECT_TRUE(bl.pop() == nullptr);
	EXPECT_EQ(bl.waiting(), 0u);
	for (QPeer &q : p)
		EXPECT_FALSE(q.backlogged);
}

KTEST_SUITE(cm_send_budget, KTEST_CASE(cm_send_budget, bound_and_room),
	    KTEST_CASE(cm_send_budget, echo_takes_the_reserve_through_a_bar),
	    KTEST_CASE(cm_send_budget, receive_backlog_is_not_lateness),
	    KTEST_CASE(cm_send_budget, flood_does_not_hide_a_held_send),
	    KTEST_CASE(cm_send_budget, deep_cq_flood_does_not_hide_a_held_send),
	    KTEST_CASE(cm_send_budget, one_free_slot_continues_the_backlog),
	    KTEST_CASE(cm_send_budget, reserve_kept_for_progress),
	    KTEST_CASE(cm_send_budget, progress_threshold),
	    KTEST_CASE(cm_send_budget, bar_proportional_to_lateness),
	    KTEST_CASE(cm_send_budget, stale_head_empties_the_ring),
	    KTEST_CASE(cm_send_budget, completion_before_poster_returns),
	    KTEST_CASE(cm_send_budget, failed_post_returns_its_slot),
	    KTEST_CASE(cm_send_budget, underflow_clamped_and_counted));
KTEST_SUITE(cm_peer_index, KTEST_CASE(cm_peer_index, finds_every_peer_past_the_bucket_count));
KTEST_SUITE(cm_send_candidate, KTEST_CASE(cm_send_candidate, skips_a_connection_in_teardown));
KTEST_SUITE(cm_fallback_note, KTEST_CASE(cm_fallback_note, info_line_once_when_printed));
KTEST_SUITE(cm_xmit_rc, KTEST_CASE(cm_xmit_rc, backlogged_peer_drains_while_another_saturates),
	    KTEST_CASE(cm_xmit_rc, at_the_bound_queues_in_order));
KTEST_SUITE(cm_backlog, KTEST_CASE(cm_backlog, fifo_once_and_remove));
KTEST_SUITE(cm_send_reserve, KTEST_CASE(cm_send_reserve, stalled_connections_leave_a_ring_to_a_healthy_peer),
	    KTEST_CASE(cm_send_reserve, refused_only_the_reserve_and_only_while_stalled),
	    KTEST_CASE(cm_send_reserve, backlog_round_passes_a_peer_refused_the_reserve),
	    KTEST_CASE(cm_send_reserve, trickling_peers_do_not_hold_the_reserve),
	    KTEST_CASE(cm_send_reserve, flipping_peers_do_not_take_the_reserve),
	    KTEST_CASE(cm_send_reserve, steady_completions_keep_the_reserve),
	    KTEST_CASE(cm_send_reserve, prompt_once_then_hold_does_not_drain_the_reserve),
	    KTEST_CASE(cm_send_reserve, dreq_and_reconnect_keep_the_bar),
	    KTEST_CASE(cm_send_reserve, new_qpn_keeps_the_gid_bar),
	    KTEST_CASE(cm_send_reserve, new_qpn_while_the_old_connection_holds),
	    KTEST_CASE(cm_send_reserve, retire_bars_the_live_connections_of_the_gid),
	    KTEST_CASE(cm_send_reserve, gid_bars_keep_the_longest),
	    KTEST_CASE(cm_send_reserve, burst_from_idle_goes_as_it_completes));
KTEST_SUITE(cm_conn_bound, KTEST_CASE(cm_conn_bound, stalled_connection_holds_only_its_own_peer),
	    KTEST_CASE(cm_conn_bound, own_completions_flush_own_queue_in_order),
	    KTEST_CASE(cm_conn_bound, backlog_round_passes_a_peer_at_its_own_bound));
KTEST_SUITE(cm_flush_peer, KTEST_CASE(cm_flush_peer, stops_at_the_bound_in_order),
	    KTEST_CASE(cm_flush_peer, peer_order_kept_across_the_bound),
	    KTEST_CASE(cm_flush_peer, fall_back_mid_flush_takes_the_rest_in_order),
	    KTEST_CASE(cm_flush_peer, path_in_teardown_is_not_flushed),
	    KTEST_CASE(cm_flush_peer, held_counts_each_packet_once));

} // namespace ktest_cm_send
