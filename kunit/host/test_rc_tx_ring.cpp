// SPDX-License-Identifier: GPL-2.0
// test_rc_tx_ring.cpp (host only, over kunit/host/fake_verbs.c): connected mode's RC send
// ring (ipoib_rc_tx_ring.h): wr_id tags and in-order completion, the full ring, error vs
// flush completions, drain at teardown, and the send watchdog's clock (cm::SendClock's rule:
// the clock starts when the outstanding count goes 0 -> 1 and every completion is progress).
#include "fake_verbs.h"
#include "core/ipoib_addr.h"
#include "core/rings/ipoib_rc_tx_ring.h"
#include "ktest.h"

using namespace ipoib;

namespace {

struct Ctrs {
	u64 packets = 0, bytes = 0, wc_errors = 0, ring_full = 0, dma = 0, post = 0;
	u64 csum_skipped = 0, csum_filled = 0, drop_csum = 0, linearized = 0, drop_linearize = 0, gathered = 0;
	u64 refused = 0, gather_alloc = 0, gather_freed = 0;
	RcSendCounters refs()
	{
		return {&packets,      &bytes,	     &wc_errors, &ring_full,  &dma,		&post,
			&csum_skipped, &csum_filled, &drop_csum, &linearized, &drop_linearize, &gathered,
			&refused,      &gather_alloc, &gather_freed};
	}
};

struct TxOn {
	Ctrs c;
	kapi_cq *cq = fake_cq_new();
	kapi_qp *qp = nullptr;
	RcTxRing r{nullptr, c.refs()};
	explicit TxOn(u32 entries, u32 sge = 1)
	{
		kapi_qp_init init{};
		init.send_sge = sge;
		qp = kapi_rc_qp_create(nullptr, cq, nullptr, &init);
		kstd::ignore(r.alloc(entries, sge));
		r.bind(qp, 0);
	}
	~TxOn()
	{
		r.drain(0);
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
	// An encap header + TCP-ish bytes in the head, then `frags` page fragments of 100 bytes.
	kapi_skb *frag_skb(u32 head, u32 frags)
	{
		kapi_skb *s = skb(head);
		if (!s)
			return nullptr;
		for (u32 i = 0; i < frags; i++) {
			kapi_page *pg = kapi_page_alloc(KAPI_GFP_KERNEL);
			if (!pg)
				break;
			kapi_skb_add_frag(s, int(i), pg, 0, 100);
		}
		return s;
	}
	// What the ring holds without any gather chunk: its slots and its chunk table.
	u64 base() const
	{
		return u64(r.size()) * sizeof(RcTxSlot) +
		       u64((r.size() + kTxRowsPerChunk - 1) / kTxRowsPerChunk) * sizeof(kstd::Unique<RcTxRows>);
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
			EXPECT_EQ(int(t.r.post(t.skb(100 + i), 0, false)), int(RcPost::Posted));
			EXPECT_EQ(fake_qp_rc(t.qp)->last_send_wr_id, wrid(WrKind::RcSend, i));
			EXPECT_EQ(fake_qp_rc(t.qp)->last_send_len, 100 + i);
		}
		EXPECT_EQ(t.r.outstanding(), 3u);
		for (u32 i = 0; i < 3; i++)
			EXPECT_EQ(int(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), 1)), int(RcWc::Done));
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
		EXPECT_EQ(int(t.r.post(t.skb(64), 0, false)), int(RcPost::Posted));
	kapi_skb *extra = t.skb(64);
	EXPECT_EQ(int(t.r.post(extra, 0, false)), int(RcPost::RingFull));
	EXPECT_EQ(t.c.ring_full, 1u);
	EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 0)), int(RcWc::Done));
	EXPECT_EQ(int(t.r.post(extra, 0, false)), int(RcPost::Posted));	// the freed slot
	EXPECT_EQ(fake_qp_rc(t.qp)->last_send_wr_id, wrid(WrKind::RcSend, 0));	// wraps to slot 0
}

KTEST(rc_tx_ring, errors_flushes_and_drain)
{
	const long skbs = fake_skbs_live();
	TxOn t(8);
	for (u32 i = 0; i < 4; i++)
		EXPECT_EQ(int(t.r.post(t.skb(64), 0, false)), int(RcPost::Posted));
	// A transport error is the connection's business (WcError); a flush is teardown's.
	EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_RNR_RETRY_EXC_ERR), 0)), int(RcWc::Error));
	EXPECT_EQ(int(t.r.complete(t.wc(1, KAPI_WC_WR_FLUSH_ERR), 0)), int(RcWc::Done));
	EXPECT_EQ(t.c.wc_errors, 2u);
	EXPECT_EQ(t.c.packets, 0u);
	// ForceDestroy: what NAPI will never complete is freed and reported.
	EXPECT_EQ(t.r.drain(0), 2u);
	EXPECT_EQ(t.r.outstanding(), 0u);
	EXPECT_EQ(t.r.drain(0), 0u);
	EXPECT_EQ(fake_skbs_live(), skbs);
}

KTEST(rc_tx_ring, watchdog_clock)
{
	constexpr u64 W = cm::kSendWatchdogMs;
	TxOn t(8);
	EXPECT_FALSE(t.r.stalled(1000000));	// idle: nothing outstanding is never a stall
	EXPECT_EQ(int(t.r.post(t.skb(64), 50000, false)), int(RcPost::Posted));	// 0 -> 1: clock starts
	// cm::send_stalled: more than kSendWatchdogMs without progress
	EXPECT_FALSE(t.r.stalled(50000 + W));
	EXPECT_TRUE(t.r.stalled(50000 + W + 1));
	EXPECT_EQ(int(t.r.post(t.skb(64), 55000, false)), int(RcPost::Posted));	// 1 -> 2: no restart
	EXPECT_TRUE(t.r.stalled(50000 + W + 1));
	// one of two completed: below cm::kSendProgressQuota with one still outstanding, no progress
	EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 58000)), int(RcWc::Done));
	EXPECT_TRUE(t.r.stalled(50000 + W + 1));
	EXPECT_EQ(int(t.r.complete(t.wc(1, KAPI_WC_SUCCESS), 59000)), int(RcWc::Done));
	EXPECT_FALSE(t.r.stalled(59000 + 10 * W));	// nothing outstanding again
	EXPECT_TRUE(t.r.delivered());
}

// The quota: with the ring never empty, kSendProgressQuota completions are progress, fewer
// are not (a trickle keeps no connection alive).
KTEST(rc_tx_ring, watchdog_judges_progress)
{
	constexpr u64 W = cm::kSendWatchdogMs;
	constexpr u32 Q = cm::kSendProgressQuota;
	TxOn t(32);
	EXPECT_FALSE(t.r.delivered());
	for (u32 i = 0; i < Q + 2; i++)
		EXPECT_EQ(int(t.r.post(t.skb(64), 1000, false)), int(RcPost::Posted));
	for (u32 i = 0; i < Q - 1; i++)
		EXPECT_EQ(int(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), 2000 + i)), int(RcWc::Done));
	EXPECT_TRUE(t.r.stalled(1000 + W + 1));	// Q - 1 completions: not progress
	EXPECT_EQ(int(t.r.complete(t.wc(Q - 1, KAPI_WC_SUCCESS), 5000)), int(RcWc::Done));
	EXPECT_FALSE(t.r.stalled(5000 + W));	// the Q-th is
	EXPECT_TRUE(t.r.stalled(5000 + W + 1));
	EXPECT_TRUE(t.r.delivered());
	EXPECT_EQ(int(t.r.complete(t.wc(Q, KAPI_WC_SUCCESS), 6000)), int(RcWc::Done));
	EXPECT_EQ(int(t.r.complete(t.wc(Q + 1, KAPI_WC_SUCCESS), 6000)), int(RcWc::Done));
}


// The reserve's inputs over the ring's own indices (cm::reserve_eligible, the helpers
// cm::ReserveClock runs too): each slot's post time makes the head-of-line age and the
// lateness of its completion, and what the last completion saw (the head, its batch) is the
// credit: the batch plus cm::kReserveUnacked, not the rest of the ring.
KTEST(rc_tx_ring, reserve_eligibility)
{
	constexpr u32 T = cm::kReserveHolMs, K = cm::kReserveUnacked;
	TxOn t(32);
	EXPECT_TRUE(t.r.reserve_eligible(0));	// nothing outstanding
	for (u32 i = 0; i <= K; i++)
		EXPECT_EQ(int(t.r.post(t.skb(64), 1000 + i, false)), int(RcPost::Posted));
	EXPECT_FALSE(t.r.reserve_eligible(1000 + K));	// K + 1 and no completion since 0 -> 1
	EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 1005)), int(RcWc::Done));
	for (u32 i = 0; i <= K + 1; i++) {	// a batch of one: K + 2 may follow, not the ring
		EXPECT_TRUE(t.r.reserve_eligible(1006));
		EXPECT_EQ(int(t.r.post(t.skb(64), 1006, false)), int(RcPost::Posted));
	}
	EXPECT_FALSE(t.r.reserve_eligible(1006));
	EXPECT_EQ(int(t.r.complete(t.wc(1, KAPI_WC_SUCCESS), 1010)), int(RcWc::Done));
	EXPECT_EQ(int(t.r.complete(t.wc(2, KAPI_WC_SUCCESS), 1010)), int(RcWc::Done));
	for (u32 i = 0; i < K + 2; i++)	// a batch of two: K + 2 unacknowledged is in credit
		EXPECT_EQ(int(t.r.post(t.skb(64), 1011, false)), int(RcPost::Posted));
	EXPECT_TRUE(t.r.reserve_eligible(1006 + T - 1));	// the head of line is posted at 1006
	EXPECT_FALSE(t.r.reserve_eligible(1006 + T));
	EXPECT_FALSE(t.r.reserve_barred(1006 + T));
	for (u32 i = K + 1; i < K + 5; i++)	// posted at 1006, completed in time
		EXPECT_EQ(int(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), 1006 + T - 1)), int(RcWc::Done));
	EXPECT_FALSE(t.r.reserve_barred(1006 + T));
	EXPECT_TRUE(t.r.reserve_eligible(1011 + T - 1));
	// posted at 1011, completed 50 ms later: barred for twice its age
	EXPECT_EQ(int(t.r.complete(t.wc(K + 5, KAPI_WC_SUCCESS), 1011 + T)), int(RcWc::Done));
	EXPECT_TRUE(t.r.reserve_barred(1011 + T));
	for (u32 i = K + 6; i < 2 * K + 7; i++)
		EXPECT_EQ(int(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), 1011 + T)), int(RcWc::Done));
	EXPECT_EQ(t.r.outstanding(), 0u);
	EXPECT_FALSE(t.r.reserve_eligible(1011 + 3 * T - 1));	// empty, barred twice the age
	EXPECT_TRUE(t.r.reserve_eligible(1011 + 3 * T));
	EXPECT_TRUE(t.r.reserve_eligible(900000));
}

// The bar is the peer's: a ring drained at teardown with a head of line cm::kReserveHolMs
// old leaves a bar (a late completion at that moment), one drained younger does not; a new
// ring raised to the peer's bar (CmTable::reserve_bar_inherit) is refused with nothing
// outstanding, and raising never lowers it.
KTEST(rc_tx_ring, reserve_bar_kept_across_teardown)
{
	constexpr u32 T = cm::kReserveHolMs;
	TxOn old(8), young(8), fresh(8);
	EXPECT_EQ(int(old.r.post(old.skb(64), 1000, false)), int(RcPost::Posted));
	EXPECT_EQ(int(young.r.post(young.skb(64), 1000, false)), int(RcPost::Posted));
	EXPECT_EQ(young.r.drain(1000 + T - 1), 1u);
	EXPECT_EQ(young.r.reserve_bar(), 0u);
	EXPECT_EQ(old.r.drain(1000 + T), 1u);
	const u64 bar = old.r.reserve_bar();
	EXPECT_EQ(bar, cm::reserve_bar_after(0, 1000 + T, 1000));
	EXPECT_TRUE(old.r.reserve_barred(1000 + T));
	fresh.r.reserve_bar_at_least(bar);
	fresh.r.reserve_bar_at_least(bar - 1);
	EXPECT_EQ(fresh.r.reserve_bar(), bar);
	EXPECT_FALSE(fresh.r.reserve_eligible(bar - 1));
	EXPECT_TRUE(fresh.r.reserve_eligible(bar));
}

// A completion processed behind our own receive backlog (lag_ms, cm::poll_backlog_lag) is
// judged less that backlog's age: one posted 20 ms before the backlog began, processed 10 T
// later, bars nothing; one posted T before it began bars as before.
KTEST(rc_tx_ring, receive_backlog_lag_does_not_bar)
{
	constexpr u32 T = cm::kReserveHolMs;
	TxOn t(8);
	EXPECT_EQ(int(t.r.post(t.skb(64), 1000, false)), int(RcPost::Posted));
	EXPECT_EQ(int(t.r.post(t.skb(64), 1000, false)), int(RcPost::Posted));
	EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 1000 + 10 * T, 10 * T - 20)), int(RcWc::Done));
	EXPECT_EQ(t.r.reserve_bar(), 0u);
	EXPECT_EQ(int(t.r.complete(t.wc(1, KAPI_WC_SUCCESS), 1000 + 10 * T, 9 * T)), int(RcWc::Done));
	EXPECT_EQ(t.r.reserve_bar(), 1000 + 10 * T + 2 * T);
	EXPECT_TRUE(t.r.reserve_barred(1000 + 10 * T));
}

// The head and each fragment are one SGE each; every mapping is undone at the
// completion; an skb with more fragments than the QP's SGEs is linearized (counted).
KTEST(rc_tx_ring, gathers_head_and_fragments)
{
	const long skbs = fake_skbs_live(), dma = fake_dma_live();
	{
		TxOn t(8, KAPI_RC_SEND_SGE_MAX);
		EXPECT_EQ(int(t.r.post(t.frag_skb(60, 3), 0, false)), int(RcPost::Posted));
		EXPECT_EQ(fake_qp_rc(t.qp)->last_send_nsge, 4u);
		EXPECT_EQ(fake_qp_rc(t.qp)->last_send_len, 360u);
		EXPECT_EQ(fake_dma_live(), dma + 4);
		EXPECT_EQ(t.c.linearized, 0u);
		EXPECT_EQ(t.c.gathered, 1u);
		EXPECT_EQ(int(t.r.post(t.frag_skb(60, KAPI_SKB_MAX_FRAGS), 0, false)), int(RcPost::Posted));
		EXPECT_EQ(fake_qp_rc(t.qp)->last_send_nsge, u32(KAPI_RC_SEND_SGE_MAX));
		EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 1)), int(RcWc::Done));
		EXPECT_EQ(int(t.r.complete(t.wc(1, KAPI_WC_SUCCESS), 1)), int(RcWc::Done));
		EXPECT_EQ(fake_dma_live(), dma);
		EXPECT_EQ(t.c.bytes, 360u + 60u + 100u * KAPI_SKB_MAX_FRAGS);
	}
	EXPECT_EQ(fake_skbs_live(), skbs);
}

KTEST(rc_tx_ring, linearizes_only_above_the_sge_limit)
{
	const long dma = fake_dma_live();
	TxOn t(8, 3);
	EXPECT_EQ(int(t.r.post(t.frag_skb(60, 2), 0, false)), int(RcPost::Posted));	// 3 SGEs: fits
	EXPECT_EQ(fake_qp_rc(t.qp)->last_send_nsge, 3u);
	EXPECT_EQ(t.c.linearized, 0u);
	EXPECT_EQ(int(t.r.post(t.frag_skb(60, 3), 0, false)), int(RcPost::Posted));	// 4 > 3: one buffer
	EXPECT_EQ(fake_qp_rc(t.qp)->last_send_nsge, 1u);
	EXPECT_EQ(fake_qp_rc(t.qp)->last_send_len, 360u);
	EXPECT_EQ(t.c.linearized, 1u);
	EXPECT_EQ(t.c.gathered, 1u);	// the first only
	// a linearize that cannot allocate drops the packet (the caller frees it), counted
	kapi_skb *big = t.frag_skb(60, 5);
	{
		ktest::AllocFailAll no_memory;
		EXPECT_EQ(int(t.r.post(big, 0, false)), int(RcPost::Linearize));
	}
	EXPECT_EQ(t.c.drop_linearize, 1u);
	kapi_skb_free(big);
	EXPECT_EQ(t.r.drain(0), 2u);
	EXPECT_EQ(fake_dma_live(), dma);
}

// The gather table comes on first use: a ring that sent only linear skbs has none; the
// first fragmented skb in a chunk of kTxRowsPerChunk slots allocates that chunk; without
// memory for it the skb is linearized (counted), one SGE.
KTEST(rc_tx_ring, gather_rows_on_first_use)
{
	const long dma = fake_dma_live();
	TxOn t(32, KAPI_RC_SEND_SGE_MAX);
	EXPECT_EQ(t.r.sge(), u32(KAPI_RC_SEND_SGE_MAX));
	EXPECT_EQ(t.r.gather_chunks(), 0u);
	for (u32 i = 0; i < 4; i++) {
		EXPECT_EQ(int(t.r.post(t.skb(64), 0, false)), int(RcPost::Posted));
		EXPECT_EQ(int(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), 1)), int(RcWc::Done));
	}
	EXPECT_EQ(t.r.gather_chunks(), 0u);	// linear sends only: no table
	{
		kapi_skb *s = t.frag_skb(60, 2);
		ktest::AllocFailAll no_memory;	// slot 4's chunk cannot be had, nor a linear copy
		EXPECT_EQ(int(t.r.post(s, 0, false)), int(RcPost::Linearize));
		kapi_skb_free(s);
	}
	EXPECT_EQ(t.c.drop_linearize, 1u);
	{
		kapi_skb *s = t.frag_skb(60, 2);
		ktest_alloc_fail_nth(0);	// the chunk fails, the linear copy after it succeeds
		EXPECT_EQ(int(t.r.post(s, 0, false)), int(RcPost::Posted));
		ktest_alloc_fail_nth(-1);
	}
	EXPECT_EQ(t.c.linearized, 1u);
	EXPECT_EQ(fake_qp_rc(t.qp)->last_send_nsge, 1u);
	EXPECT_EQ(t.r.gather_chunks(), 0u);
	EXPECT_EQ(int(t.r.post(t.frag_skb(60, 3), 0, false)), int(RcPost::Posted));	// slot 5
	EXPECT_EQ(fake_qp_rc(t.qp)->last_send_nsge, 4u);
	EXPECT_EQ(t.r.gather_chunks(), 1u);
	EXPECT_EQ(int(t.r.post(t.frag_skb(60, 3), 0, false)), int(RcPost::Posted));	// slot 6: same chunk
	EXPECT_EQ(t.r.gather_chunks(), 1u);
	for (u32 i = 4; i < 7; i++)
		EXPECT_EQ(int(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), 1)), int(RcWc::Done));
	// slots 7..14 are chunk 0's too; slot 15 is the first of chunk 1
	for (u32 i = 7; i < 16; i++) {
		EXPECT_EQ(int(t.r.post(t.frag_skb(60, 1), 0, false)), int(RcPost::Posted));
		EXPECT_EQ(int(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), 1)), int(RcWc::Done));
	}
	EXPECT_EQ(t.r.gather_chunks(), 2u);
	EXPECT_EQ(fake_dma_live(), dma);
	RcTxRing r2{nullptr, t.c.refs()};
	EXPECT_OK(r2.alloc(8, 100));	// clamped to the head + every fragment
	EXPECT_EQ(r2.sge(), u32(KAPI_RC_SEND_SGE_MAX));
}

KTEST(rc_tx_ring, dma_failure_mid_skb_unmaps_what_was_mapped)
{
	const long dma = fake_dma_live();
	TxOn t(8, KAPI_RC_SEND_SGE_MAX);
	kapi_skb *s = t.frag_skb(60, 4);
	// head + 2 fragments map, the 3rd fragment fails
	fake_dma_fail_after(3);
	EXPECT_EQ(int(t.r.post(s, 0, false)), int(RcPost::Dma));
	EXPECT_EQ(t.c.dma, 1u);
	EXPECT_EQ(fake_dma_live(), dma);
	EXPECT_EQ(t.r.outstanding(), 0u);
	EXPECT_EQ(int(t.r.post(s, 0, false)), int(RcPost::Posted));	// the slot is free again
	EXPECT_EQ(t.r.drain(0), 1u);
	EXPECT_EQ(fake_dma_live(), dma);
}

// The checksum rule (cm::tx_csum) as the ring applies it: towards a negotiated peer a
// TCP/UDP CHECKSUM_PARTIAL packet is marked and left unfilled; otherwise it is filled.
// The skb's first octets as the stack leaves a TCP/IPv4 CHECKSUM_PARTIAL one: the
// encapsulation header, a 20-octet IPv4 header (protocol 6), csum_start at the TCP header.
static void ipv4_tcp(kapi_skb *skb)
{
	u8 *d = kapi_skb_data(skb);
	for (u32 i = 0; i < kEncapLen + 20; i++)
		d[i] = 0;	// the fake's buffer is not zeroed: no stray fragment bits
	encap_write(d, 0x0800);
	d[kEncapLen] = 0x45;
	d[kEncapLen + 9] = 6;
	fake_skb_set_csum_start(skb, kEncapLen + 20);
}

// A 64-octet TCP/IPv4 CHECKSUM_PARTIAL skb (ipv4_tcp), its head shared with a clone or not.
static kapi_skb *partial_tcp(TxOn &t, bool cloned = false)
{
	kapi_skb *s = t.skb(64);
	ipv4_tcp(s);
	fake_skb_set_partial(s, cm::kTcpCsumOffset);
	if (cloned)
		fake_skb_set_cloned(s);
	return s;
}

KTEST(rc_tx_ring, checksum_marked_or_filled)
{
	TxOn t(8);
	const long helped = fake_csum_helped();
	kapi_skb *tcp = partial_tcp(t);
	EXPECT_EQ(int(t.r.post(tcp, 0, true)), int(RcPost::Posted));
	EXPECT_TRUE(cm::encap_csum_marked(kapi_skb_data(tcp)));
	EXPECT_TRUE(fake_skb_partial(tcp));
	EXPECT_EQ(t.c.csum_skipped, 1u);
	EXPECT_EQ(fake_csum_helped(), helped);
	// the same towards a peer that did not negotiate it: filled, not marked
	kapi_skb *tcp2 = partial_tcp(t);
	EXPECT_EQ(int(t.r.post(tcp2, 0, false)), int(RcPost::Posted));
	EXPECT_FALSE(cm::encap_csum_marked(kapi_skb_data(tcp2)));
	EXPECT_FALSE(fake_skb_partial(tcp2));
	EXPECT_EQ(t.c.csum_filled, 1u);
	// a checksum field skb_checksum_setup cannot restore (not TCP's or UDP's): filled
	kapi_skb *other = t.skb(64);
	ipv4_tcp(other);
	fake_skb_set_partial(other, 2);
	EXPECT_EQ(int(t.r.post(other, 0, true)), int(RcPost::Posted));
	EXPECT_FALSE(cm::encap_csum_marked(kapi_skb_data(other)));
	EXPECT_EQ(t.c.csum_filled, 2u);
	// a packet whose checksum is done already goes as it is
	// (its octets 2-3 cleared: a sender's forged mark does not reach the wire)
	kapi_skb *done = t.skb(64);
	encap_write(kapi_skb_data(done), 0x0800);
	cm::encap_mark_csum(kapi_skb_data(done));
	EXPECT_EQ(int(t.r.post(done, 0, true)), int(RcPost::Posted));
	EXPECT_FALSE(cm::encap_csum_marked(kapi_skb_data(done)));
	EXPECT_EQ(fake_csum_helped(), helped + 2);
	// skb_checksum_help failing: dropped before anything is mapped, counted
	kapi_skb *bad = t.skb(64);
	fake_skb_set_partial(bad, cm::kUdpCsumOffset);
	fake_csum_help_fail_next(1);
	EXPECT_EQ(int(t.r.post(bad, 0, false)), int(RcPost::Csum));
	EXPECT_EQ(t.c.drop_csum, 1u);
	EXPECT_EQ(t.r.outstanding(), 4u);
	kapi_skb_free(bad);
	EXPECT_EQ(t.r.drain(0), 4u);
}

// Octets 2-3 are written only when they differ from what the send needs,
// and then into a head of the skb's own: a clone (a tap, tc mirred) shares the head, and its
// copy of the packet keeps what the stack sent. A failed copy drops the packet, counted.
KTEST(rc_tx_ring, cloned_head_copied_only_to_change_octets_2_3)
{
	TxOn t(8);
	const long copies = fake_cow_copies();
	// the mark on a clone: copied first, the clone's view unchanged
	kapi_skb *tcp = partial_tcp(t, true);
	EXPECT_EQ(int(t.r.post(tcp, 0, true)), int(RcPost::Posted));
	EXPECT_TRUE(cm::encap_csum_marked(kapi_skb_data(tcp)));
	EXPECT_FALSE(cm::encap_csum_marked(fake_skb_shared_data(tcp)));
	EXPECT_EQ(fake_cow_copies(), copies + 1);
	// octets 2-3 already zero, nothing to mark: the clone's head is not copied, nor written
	kapi_skb *done = t.skb(64);
	encap_write(kapi_skb_data(done), 0x0800);
	fake_skb_set_cloned(done);
	EXPECT_EQ(int(t.r.post(done, 0, true)), int(RcPost::Posted));
	EXPECT_EQ(fake_cow_copies(), copies + 1);
	EXPECT_TRUE(fake_skb_shared_data(done) == kapi_skb_data(done));
	// a forged mark on a clone: cleared in our copy, the clone keeps its bytes
	kapi_skb *forged = t.skb(64);
	encap_write(kapi_skb_data(forged), 0x0800);
	cm::encap_mark_csum(kapi_skb_data(forged));
	fake_skb_set_cloned(forged);
	EXPECT_EQ(int(t.r.post(forged, 0, true)), int(RcPost::Posted));
	EXPECT_FALSE(cm::encap_csum_marked(kapi_skb_data(forged)));
	EXPECT_TRUE(cm::encap_csum_marked(fake_skb_shared_data(forged)));
	EXPECT_EQ(fake_cow_copies(), copies + 2);
	// the copy fails: dropped before anything is mapped, counted with the checksum drops
	kapi_skb *nomem = partial_tcp(t, true);
	fake_cow_fail_next(1);
	ASSERT_EQ(int(t.r.post(nomem, 0, true)), int(RcPost::Csum));	// else the ring owns it
	EXPECT_EQ(t.c.drop_csum, 1u);
	EXPECT_FALSE(cm::encap_csum_marked(fake_skb_shared_data(nomem)));
	kapi_skb_free(nomem);
	EXPECT_EQ(t.r.outstanding(), 3u);
	EXPECT_EQ(t.r.drain(0), 3u);
}

// A completion for a slot that holds no send (a duplicate CQE, a stale wr_id,
// a completion with nothing outstanding) is refused, counted and warned once, never
// dereferenced; the ring's sends that are outstanding are not disturbed by it.
KTEST(rc_tx_ring, completion_for_an_empty_slot_is_refused)
{
	const long skbs = fake_skbs_live(), dma = fake_dma_live();
	{
		TxOn t(4, KAPI_RC_SEND_SGE_MAX);
		ktest_warn_catch_begin();
		EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 1)), int(RcWc::Refused));	// nothing posted
		EXPECT_EQ(ktest_warn_catch_end(), 1);
		EXPECT_EQ(t.r.refused(), 1u);
		EXPECT_EQ(t.r.outstanding(), 0u);
		EXPECT_EQ(t.c.packets, 0u);
		EXPECT_EQ(int(t.r.post(t.frag_skb(60, 2), 0, false)), int(RcPost::Posted));
		EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 1)), int(RcWc::Done));
		ktest_warn_catch_begin();
		// the same CQE again (a duplicate), and one naming another slot: refused, not warned twice
		EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 1)), int(RcWc::Refused));
		EXPECT_EQ(int(t.r.complete(t.wc(3, KAPI_WC_WR_FLUSH_ERR), 1)), int(RcWc::Refused));
		EXPECT_EQ(ktest_warn_catch_end(), 0);
		EXPECT_EQ(t.r.refused(), 3u);
		// a completion whose wr_id names a slot other than the tail's, with a send outstanding
		EXPECT_EQ(int(t.r.post(t.skb(64), 0, false)), int(RcPost::Posted));	// slot 1
		EXPECT_EQ(int(t.r.complete(t.wc(2, KAPI_WC_SUCCESS), 1)), int(RcWc::Refused));
		EXPECT_EQ(t.r.outstanding(), 1u);
		EXPECT_EQ(int(t.r.complete(t.wc(1, KAPI_WC_SUCCESS), 1)), int(RcWc::Done));
		EXPECT_EQ(t.c.packets, 2u);
		EXPECT_EQ(t.c.wc_errors, 0u);
		EXPECT_EQ(fake_dma_live(), dma);
	}
	EXPECT_EQ(fake_skbs_live(), skbs);
}

// Item 2: gather chunks come with the first fragmented send of their slots and go back once
// nothing is outstanding and no fragmented send was posted for kTxGatherIdleMs; bytes()
// follows them; an outstanding send (fragmented or not) keeps them.
KTEST(rc_tx_ring, gather_chunks_freed_when_idle)
{
	const long skbs = fake_skbs_live(), dma = fake_dma_live();
	{
		TxOn t(32, KAPI_RC_SEND_SGE_MAX);
		const u64 base = t.base();
		EXPECT_EQ(t.r.bytes(), base);
		EXPECT_EQ(t.r.trim(100000), 0u);	// nothing to free
		u64 now = 1000;
		// slots 0 and 15: two chunks
		for (u32 i = 0; i < 16; i++) {
			EXPECT_EQ(int(t.r.post(t.frag_skb(60, i == 0 || i == 15 ? 2 : 0), now, false)), int(RcPost::Posted));
			EXPECT_EQ(int(t.r.complete(t.wc(i, KAPI_WC_SUCCESS), now)), int(RcWc::Done));
		}
		EXPECT_EQ(t.r.gather_chunks(), 2u);
		EXPECT_EQ(t.c.gather_alloc, 2u);
		EXPECT_EQ(t.r.bytes(), base + 2 * sizeof(RcTxRows));
		EXPECT_EQ(t.r.trim(now + kTxGatherIdleMs - 1), 0u);	// not quiet long enough
		// a linear send does not restart the clock, but while it is outstanding nothing goes
		EXPECT_EQ(int(t.r.post(t.skb(60), now + 10, false)), int(RcPost::Posted));	// slot 16
		EXPECT_EQ(t.r.trim(now + kTxGatherIdleMs), 0u);
		EXPECT_EQ(t.r.gather_chunks(), 2u);
		EXPECT_EQ(int(t.r.complete(t.wc(16, KAPI_WC_SUCCESS), now + 10)), int(RcWc::Done));
		EXPECT_EQ(t.r.trim(now + kTxGatherIdleMs), 2u);
		EXPECT_EQ(t.r.gather_chunks(), 0u);
		EXPECT_EQ(t.c.gather_freed, 2u);
		EXPECT_EQ(t.r.bytes(), base);
		EXPECT_EQ(t.r.trim(now + 2 * kTxGatherIdleMs), 0u);	// once
		now += kTxGatherIdleMs;
		// the next fragmented send gets its chunk again; a fragmented send restarts the clock
		EXPECT_EQ(int(t.r.post(t.frag_skb(60, 3), now, false)), int(RcPost::Posted));	// slot 17
		EXPECT_EQ(t.r.gather_chunks(), 1u);
		EXPECT_EQ(fake_qp_rc(t.qp)->last_send_nsge, 4u);
		EXPECT_EQ(t.r.trim(now + kTxGatherIdleMs), 0u);	// outstanding
		EXPECT_EQ(int(t.r.complete(t.wc(17, KAPI_WC_SUCCESS), now + 1)), int(RcWc::Done));
		EXPECT_EQ(t.r.trim(now + kTxGatherIdleMs - 1), 0u);
		EXPECT_EQ(t.r.trim(now + kTxGatherIdleMs), 1u);
		EXPECT_EQ(t.c.gather_freed, 3u);
		// without memory for the chunk the send is linearized, not dropped
		{
			kapi_skb *s = t.frag_skb(60, 2);
			ktest_alloc_fail_nth(0);
			EXPECT_EQ(int(t.r.post(s, now, false)), int(RcPost::Posted));	// slot 18
			ktest_alloc_fail_nth(-1);
		}
		EXPECT_EQ(t.c.linearized, 1u);
		EXPECT_EQ(t.r.gather_chunks(), 0u);
		EXPECT_EQ(t.r.bytes(), base);
		EXPECT_EQ(int(t.r.complete(t.wc(18, KAPI_WC_SUCCESS), now)), int(RcWc::Done));
		// housekeeping read its now before the producer's last fragmented send stamped a
		// later time: that ring is not idle (no wrap of now - gather_ms to ~2^64)
		now += 2 * kTxGatherIdleMs;
		EXPECT_EQ(int(t.r.post(t.frag_skb(60, 2), now, false)), int(RcPost::Posted));	// slot 19
		EXPECT_EQ(int(t.r.complete(t.wc(19, KAPI_WC_SUCCESS), now)), int(RcWc::Done));
		EXPECT_EQ(t.r.gather_chunks(), 1u);
		EXPECT_EQ(t.r.trim(now - 1), 0u);
		EXPECT_EQ(t.r.gather_chunks(), 1u);
		EXPECT_EQ(t.r.trim(now + kTxGatherIdleMs), 1u);
		EXPECT_EQ(t.c.gather_freed, 4u);
		EXPECT_EQ(fake_dma_live(), dma);
	}
	EXPECT_EQ(fake_skbs_live(), skbs);
}

KTEST(rc_tx_ring, refused_reaches_the_owners_counter)
{
	TxOn t(4);
	ktest_warn_catch_begin();
	EXPECT_EQ(int(t.r.complete(t.wc(0, KAPI_WC_SUCCESS), 1)), int(RcWc::Refused));
	EXPECT_EQ(ktest_warn_catch_end(), 1);
	EXPECT_EQ(t.r.refused(), 1u);
	EXPECT_EQ(t.c.refused, 1u);	// ethtool rc_tx_refused
}

KTEST_SUITE(rc_tx_ring, KTEST_CASE(rc_tx_ring, posts_tagged_and_completes_in_order),
	    KTEST_CASE(rc_tx_ring, full_ring_refuses_and_counts), KTEST_CASE(rc_tx_ring, errors_flushes_and_drain),
	    KTEST_CASE(rc_tx_ring, watchdog_clock), KTEST_CASE(rc_tx_ring, watchdog_judges_progress),
	    KTEST_CASE(rc_tx_ring, reserve_eligibility),
	    KTEST_CASE(rc_tx_ring, reserve_bar_kept_across_teardown),
	    KTEST_CASE(rc_tx_ring, receive_backlog_lag_does_not_bar),
	    KTEST_CASE(rc_tx_ring, gathers_head_and_fragments),
	    KTEST_CASE(rc_tx_ring, linearizes_only_above_the_sge_limit),
	    KTEST_CASE(rc_tx_ring, dma_failure_mid_skb_unmaps_what_was_mapped),
	    KTEST_CASE(rc_tx_ring, gather_rows_on_first_use),
	    KTEST_CASE(rc_tx_ring, checksum_marked_or_filled),
	    KTEST_CASE(rc_tx_ring, cloned_head_copied_only_to_change_octets_2_3),
	    KTEST_CASE(rc_tx_ring, completion_for_an_empty_slot_is_refused),
	    KTEST_CASE(rc_tx_ring, gather_chunks_freed_when_idle),
	    KTEST_CASE(rc_tx_ring, refused_reaches_the_owners_counter));
