// SPDX-License-Identifier: GPL-2.0
// test_cm_admission.cpp - the REQ admission bounds (ipoib_cm_admission.h): the pool of
// unanswered passive connections (its size from cm_req_pool and the connection limit, take
// and put), the budget of passive connections whose peer has not proven its identity
// (req_admit), a connection's slot of that budget (UnprovenSlot: given back exactly once, a
// one-way connection's at its first receive), the unreserved budget (the connection limit
// less the reserve our own connections and proven peers keep) and the peer-table bound.
#include "ktest.h"
#include "core/cm/ipoib_cm_admission.h"

namespace ktest_cm_admission {

using ipoib::peers_full;
using ipoib::req_admit;
using ipoib::ReqAdmit;
using ipoib::ReqPool;
using ipoib::unproven_returns_at_rx;
using ipoib::UnprovenSlot;
using kstd::u32;

// The fixture: an interface's three admission budgets, and a REQ admitted over them.
struct Budgets {
	ReqPool pool;		// unanswered passive connections
	ReqPool unproven;	// passive connections whose peer has not proven its identity
	ReqPool open;		// passive connections outside the reserve (the unreserved budget)

	// As CmTable::start sets them for a connection limit, cm_req_pool at its default.
	explicit Budgets(u32 limit)
		: Budgets(ReqPool::bound(64, limit), ReqPool::unproven_bound(limit),
			  ReqPool::unreserved_bound(limit))
	{
	}
	// By hand: a case that needs one budget to bind before the others.
	Budgets(u32 p, u32 u, u32 o)
	{
		pool.set_limit(p);
		unproven.set_limit(u);
		open.set_limit(o);
	}
	ReqAdmit admit() { return req_admit(pool, unproven, open); }
	// A REQ admitted and answered: the connection holds its unproven slot (one_way:
	// unproven_returns_at_rx) and its RTU takes it out of the unanswered pool. Refused: nothing.
	ReqAdmit admit_rtu(UnprovenSlot &slot, bool one_way)
	{
		const ReqAdmit a = admit();
		if (a == ReqAdmit::Ok) {
			slot.hold(one_way);
			pool.put();
		}
		return a;
	}
};

// A slot of budget taken by hand for slot (one_way as UnprovenSlot::hold); false when full.
bool take_slot(ReqPool &budget, UnprovenSlot &slot, bool one_way)
{
	if (!budget.take())
		return false;
	slot.hold(one_way);
	return true;
}

KTEST(cm_req_pool, bound)
{
	// cm_req_pool, at most half the limit, at least one.
	EXPECT_EQ(ReqPool::bound(64, 1024), 64u);	// SRQ mode at the default
	EXPECT_EQ(ReqPool::bound(64, 32), 16u);		// a small non-SRQ limit halves it
	EXPECT_EQ(ReqPool::bound(64, 128), 64u);
	EXPECT_EQ(ReqPool::bound(64, 129), 64u);
	EXPECT_EQ(ReqPool::bound(4096, 4096), 2048u);
	EXPECT_EQ(ReqPool::bound(1, 1024), 1u);
	EXPECT_EQ(ReqPool::bound(64, 3), 1u);
	EXPECT_EQ(ReqPool::bound(64, 1), 1u);		// a one-connection limit still admits one
	EXPECT_EQ(ReqPool::bound(64, 0), 1u);
}

KTEST(cm_req_pool, take_put)
{
	ReqPool p;
	EXPECT_FALSE(p.room());	// no limit set: nothing admitted
	EXPECT_FALSE(p.take());
	p.set_limit(3);
	EXPECT_EQ(p.limit(), 3u);
	for (u32 i = 0; i < 3; i++) {
		EXPECT_TRUE(p.room());
		EXPECT_TRUE(p.take());
	}
	EXPECT_EQ(p.used(), 3u);
	EXPECT_FALSE(p.room());
	EXPECT_FALSE(p.take());	// full: refused, nothing taken
	EXPECT_EQ(p.used(), 3u);
	p.put();
	EXPECT_EQ(p.used(), 2u);
	EXPECT_TRUE(p.take());
	EXPECT_FALSE(p.take());
	for (u32 i = 0; i < 3; i++)
		p.put();
	EXPECT_EQ(p.used(), 0u);
	p.put();		// an unmatched put never wraps below zero
	EXPECT_EQ(p.used(), 0u);
	EXPECT_TRUE(p.take());
	p.set_limit(0);		// a lowered limit refuses until the pool drains below it
	EXPECT_FALSE(p.take());
	EXPECT_EQ(p.used(), 1u);
}

KTEST(cm_req_unproven, bound_is_half_the_limit)
{
	EXPECT_EQ(ReqPool::unproven_bound(1024), 512u);
	EXPECT_EQ(ReqPool::unproven_bound(33), 16u);
	EXPECT_EQ(ReqPool::unproven_bound(1), 1u);	// a one-connection limit still admits one
	EXPECT_EQ(ReqPool::unproven_bound(0), 1u);
}

// A forger that answers our REP with an RTU leaves the unanswered pool at once, but never
// proves the identity it claimed: its connections stay in the unproven budget until torn
// down, so they take at most half the connection limit.
KTEST(cm_req_unproven, rtu_without_proof_stops_at_the_budget)
{
	Budgets b(16);	// pool 8, unproven 8, unreserved 12
	for (u32 i = 0; i < 8; i++) {
		EXPECT_TRUE(b.admit() == ReqAdmit::Ok);
		b.pool.put();	// its RTU: out of the pool, not proven
	}
	EXPECT_EQ(b.pool.used(), 0u);
	EXPECT_EQ(b.unproven.used(), 8u);
	EXPECT_TRUE(b.admit() == ReqAdmit::UnprovenFull);
	EXPECT_EQ(b.pool.used(), 0u);	// refused: its pool slot given back
	EXPECT_EQ(b.unproven.used(), 8u);
	b.unproven.put();	// one proven (or torn down): room for one more REQ
	EXPECT_TRUE(b.admit() == ReqAdmit::Ok);
	EXPECT_EQ(b.pool.used(), 1u);
	EXPECT_EQ(b.unproven.used(), 8u);
}

KTEST(cm_req_unproven, pool_full_takes_nothing)
{
	Budgets b(2, 8, 8);
	EXPECT_TRUE(b.admit() == ReqAdmit::Ok);
	EXPECT_TRUE(b.admit() == ReqAdmit::Ok);
	EXPECT_TRUE(b.admit() == ReqAdmit::PoolFull);	// unanswered: the pool
	EXPECT_EQ(b.pool.used(), 2u);
	EXPECT_EQ(b.unproven.used(), 2u);
	EXPECT_EQ(b.open.used(), 2u);
}

// Which passive connections give their unproven slot back at their first receive: those that
// never carry our packets (not bidirectional on both ends, and not the send_accepted test
// knob's). A bidirectional one keeps it until its proof.
KTEST(cm_req_unproven, returns_at_rx_only_when_one_way)
{
	EXPECT_TRUE(unproven_returns_at_rx(true, false, false));	// the in-tree driver's REQ
	EXPECT_TRUE(unproven_returns_at_rx(false, true, false));	// ours with cm_bidir=0
	EXPECT_TRUE(unproven_returns_at_rx(false, false, false));
	EXPECT_FALSE(unproven_returns_at_rx(true, true, false));	// bidirectional: the proof
	EXPECT_FALSE(unproven_returns_at_rx(true, false, true));	// send_accepted: it may carry ours
	EXPECT_FALSE(unproven_returns_at_rx(true, true, true));
}

// More peers that can never prove (the in-tree driver) than half the limit: each one's first
// receive shows a real QP at the peer and gives its slot back, so all of them are admitted.
KTEST(cm_req_unproven, one_way_peers_beyond_half_the_limit)
{
	constexpr u32 kLimit = 16, kPeers = 12;	// more than the budget of 8, all of the unreserved 12
	Budgets b(kLimit);
	UnprovenSlot slot[kPeers];
	u32 released = 0;
	for (u32 i = 0; i < kPeers; i++) {
		ASSERT_TRUE(b.admit_rtu(slot[i], unproven_returns_at_rx(true, false, false)) == ReqAdmit::Ok);
		released += slot[i].on_rx(b.unproven) ? 1u : 0u;	// its first packet
		released += slot[i].on_rx(b.unproven) ? 1u : 0u;	// and the next: nothing more
	}
	EXPECT_EQ(released, kPeers);
	EXPECT_EQ(b.unproven.used(), 0u);
	for (u32 i = 0; i < kPeers; i++)
		EXPECT_FALSE(slot[i].release(b.unproven));	// retired later: not given back twice
	EXPECT_EQ(b.unproven.used(), 0u);
}

// Exactly once, whichever comes first: a double release would hand back another
// connection's slot (ReqPool::put only stops at zero).
KTEST(cm_req_unproven, slot_given_back_once)
{
	ReqPool unproven;
	unproven.set_limit(8);
	UnprovenSlot other, s;
	// a bidirectional connection under proof holds one more slot
	ASSERT_TRUE(take_slot(unproven, other, false));

	// One-way: the first receive gives it back; a later retirement does not.
	ASSERT_TRUE(take_slot(unproven, s, true));
	EXPECT_TRUE(s.held());
	EXPECT_TRUE(s.on_rx(unproven));
	EXPECT_FALSE(s.held());
	EXPECT_EQ(unproven.used(), 1u);
	EXPECT_FALSE(s.on_rx(unproven));
	EXPECT_FALSE(s.release(unproven));
	EXPECT_EQ(unproven.used(), 1u);

	// One-way, retired before any receive (a forger that never sends): the retirement gives
	// it back, a receive completed after it (a flush is not one, but a late success) does not.
	UnprovenSlot r;
	ASSERT_TRUE(take_slot(unproven, r, true));
	EXPECT_TRUE(r.release(unproven));
	EXPECT_EQ(unproven.used(), 1u);
	EXPECT_FALSE(r.on_rx(unproven));
	EXPECT_FALSE(r.release(unproven));
	EXPECT_EQ(unproven.used(), 1u);

	// Bidirectional: receives keep it (a forger's packets prove nothing); the echo's proof
	// gives it back, then its retirement does not.
	for (u32 i = 0; i < 3; i++)
		EXPECT_FALSE(other.on_rx(unproven));
	EXPECT_TRUE(other.held());
	EXPECT_EQ(unproven.used(), 1u);
	EXPECT_TRUE(other.release(unproven));
	EXPECT_FALSE(other.release(unproven));
	EXPECT_EQ(unproven.used(), 0u);

	// Never held (an active connection, a REQ refused before its slot): nothing to give.
	UnprovenSlot none;
	EXPECT_FALSE(none.held());
	EXPECT_FALSE(none.on_rx(unproven));
	EXPECT_FALSE(none.release(unproven));
}

// The reserve: a quarter of the limit, rounded up, that passive connections nobody proved never
// hold; at least one connection is admitted whatever the limit.
KTEST(cm_req_unreserved, bound_leaves_a_quarter)
{
	EXPECT_EQ(ReqPool::unreserved_bound(128), 96u);		// max_nonsrq_conn_qp's default
	EXPECT_EQ(ReqPool::unreserved_bound(1024), 768u);	// SRQ mode
	EXPECT_EQ(ReqPool::unreserved_bound(32), 24u);
	EXPECT_EQ(ReqPool::unreserved_bound(5), 3u);		// a quarter rounded up: 2 kept
	EXPECT_EQ(ReqPool::unreserved_bound(4), 3u);		// ipoib-dg-interop: three in-tree peers
	EXPECT_EQ(ReqPool::unreserved_bound(2), 1u);
	EXPECT_EQ(ReqPool::unreserved_bound(1), 1u);		// a one-connection limit still admits one
	EXPECT_EQ(ReqPool::unreserved_bound(0), 1u);
	for (u32 l = 2; l <= 2048; l++) {
		EXPECT_TRUE(ReqPool::unreserved_bound(l) < l);	// something is always kept
		EXPECT_TRUE(ReqPool::unreserved_bound(l) >= ReqPool::unproven_bound(l));
	}
}

// A node opens one-way connections (no kCapBidir in its REQs) and sends one packet over each:
// each gives its unproven slot back, so the unproven budget never binds; the unreserved budget
// does, at the limit less the reserve, and the connections of ours that the limit bounds
// (nconns_ < max_conns_) still have the reserve.
KTEST(cm_req_unreserved, one_way_forger_stops_at_the_reserve)
{
	constexpr u32 kLimit = 16;
	Budgets b(kLimit);
	UnprovenSlot rx[kLimit], res[kLimit];
	u32 admitted = 0;
	for (u32 i = 0; i < kLimit; i++) {
		if (b.admit_rtu(rx[i], unproven_returns_at_rx(true, false, false)) != ReqAdmit::Ok)
			break;
		res[i].hold(false);
		EXPECT_TRUE(rx[i].on_rx(b.unproven));	// its first packet
		EXPECT_FALSE(res[i].on_rx(b.open));	// ... keeps the unreserved slot
		admitted++;
	}
	EXPECT_EQ(admitted, 12u);
	EXPECT_EQ(b.unproven.used(), 0u);
	EXPECT_EQ(b.open.used(), 12u);
	EXPECT_TRUE(b.admit() == ReqAdmit::UnreservedFull);
	EXPECT_EQ(b.pool.used(), 0u);	// refused: nothing kept
	EXPECT_EQ(b.unproven.used(), 0u);
	EXPECT_EQ(b.open.used(), 12u);
	// The connections of ours the limit bounds: the reserve, a quarter of it.
	EXPECT_EQ(kLimit - b.open.used(), 4u);
	// One torn down (idle reaping, its peer's DREQ): room for one REQ again.
	EXPECT_TRUE(res[0].release(b.open));
	EXPECT_FALSE(res[0].release(b.open));
	EXPECT_TRUE(b.admit() == ReqAdmit::Ok);
}

// A bidirectional peer's proof gives both its slots back: proven peers count in the reserve's
// share, not in the unreserved budget.
KTEST(cm_req_unreserved, proof_gives_it_back)
{
	Budgets b(1, 1, 1);
	UnprovenSlot u, r;
	ASSERT_TRUE(b.admit_rtu(u, unproven_returns_at_rx(true, true, false)) == ReqAdmit::Ok);
	r.hold(false);
	EXPECT_FALSE(u.on_rx(b.unproven));	// a forger's packets prove nothing
	EXPECT_FALSE(r.on_rx(b.open));
	EXPECT_TRUE(b.admit() == ReqAdmit::UnprovenFull);
	EXPECT_TRUE(u.release(b.unproven));	// the echo
	EXPECT_TRUE(r.release(b.open));
	EXPECT_EQ(b.open.used(), 0u);
	EXPECT_TRUE(b.admit() == ReqAdmit::Ok);
}

// Ours in datagram mode, max_nonsrq_conn_qp=4 (tests/e2e/ipoib-dg-interop.sh): three in-tree
// peers, one-way, are admitted; a fourth would take the reserve and is refused.
KTEST(cm_req_unreserved, dg_interop_three_in_tree_peers)
{
	constexpr u32 kLimit = 4;
	Budgets b(kLimit);
	UnprovenSlot rx[3];
	for (u32 i = 0; i < 3; i++) {
		ASSERT_TRUE(b.admit_rtu(rx[i], true) == ReqAdmit::Ok);
		EXPECT_TRUE(rx[i].on_rx(b.unproven));
	}
	EXPECT_EQ(b.unproven.used(), 0u);
	EXPECT_EQ(b.open.used(), 3u);
	EXPECT_TRUE(b.admit() == ReqAdmit::UnreservedFull);
}

KTEST(cm_peer_bound, full)
{
	EXPECT_FALSE(peers_full(0, 0, 16));
	EXPECT_FALSE(peers_full(15, 0, 16));
	EXPECT_TRUE(peers_full(16, 0, 16));
	EXPECT_FALSE(peers_full(16, 1, 16));	// one freed: room for one more
	EXPECT_TRUE(peers_full(1000016, 1000000, 16));
	EXPECT_FALSE(peers_full(1000015, 1000000, 16));
}

KTEST_SUITE(cm_req_pool, KTEST_CASE(cm_req_pool, bound), KTEST_CASE(cm_req_pool, take_put));
KTEST_SUITE(cm_req_unproven, KTEST_CASE(cm_req_unproven, bound_is_half_the_limit),
	    KTEST_CASE(cm_req_unproven, rtu_without_proof_stops_at_the_budget),
	    KTEST_CASE(cm_req_unproven, pool_full_takes_nothing),
	    KTEST_CASE(cm_req_unproven, returns_at_rx_only_when_one_way),
	    KTEST_CASE(cm_req_unproven, one_way_peers_beyond_half_the_limit),
	    KTEST_CASE(cm_req_unproven, slot_given_back_once));
KTEST_SUITE(cm_req_unreserved, KTEST_CASE(cm_req_unreserved, bound_leaves_a_quarter),
	    KTEST_CASE(cm_req_unreserved, one_way_forger_stops_at_the_reserve),
	    KTEST_CASE(cm_req_unreserved, proof_gives_it_back),
	    KTEST_CASE(cm_req_unreserved, dg_interop_three_in_tree_peers));
KTEST_SUITE(cm_peer_bound, KTEST_CASE(cm_peer_bound, full));

} // namespace ktest_cm_admission
