// SPDX-License-Identifier: GPL-2.0
// test_cm_admission.cpp - the REQ admission bounds (ipoib_cm_admission.h): the pool of
// unanswered passive connections (its size from cm_req_pool and the connection limit, take
// and put), the budget of passive connections whose peer has not proven its identity
// (req_admit) and the peer-table bound.
#include "ktest.h"
#include "ipoib_cm_admission.h"

namespace ktest_cm_admission {

using ipoib::peers_full;
using ipoib::req_admit;
using ipoib::ReqAdmit;
using ipoib::ReqPool;
using kstd::u32;

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
	ReqPool pool, unproven;
	pool.set_limit(ReqPool::bound(64, 16));	// 8
	unproven.set_limit(ReqPool::unproven_bound(16));	// 8
	for (u32 i = 0; i < 8; i++) {
		EXPECT_TRUE(req_admit(pool, unproven) == ReqAdmit::Ok);
		pool.put();	// its RTU: out of the pool, not proven
	}
	EXPECT_EQ(pool.used(), 0u);
	EXPECT_EQ(unproven.used(), 8u);
	EXPECT_TRUE(req_admit(pool, unproven) == ReqAdmit::UnprovenFull);
	EXPECT_EQ(pool.used(), 0u);	// refused: its pool slot given back
	EXPECT_EQ(unproven.used(), 8u);
	unproven.put();	// one proven (or torn down): room for one more REQ
	EXPECT_TRUE(req_admit(pool, unproven) == ReqAdmit::Ok);
	EXPECT_EQ(pool.used(), 1u);
	EXPECT_EQ(unproven.used(), 8u);
}

KTEST(cm_req_unproven, pool_full_takes_nothing)
{
	ReqPool pool, unproven;
	pool.set_limit(2);
	unproven.set_limit(8);
	EXPECT_TRUE(req_admit(pool, unproven) == ReqAdmit::Ok);
	EXPECT_TRUE(req_admit(pool, unproven) == ReqAdmit::Ok);
	EXPECT_TRUE(req_admit(pool, unproven) == ReqAdmit::PoolFull);	// unanswered: the pool
	EXPECT_EQ(pool.used(), 2u);
	EXPECT_EQ(unproven.used(), 2u);
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
	    KTEST_CASE(cm_req_unproven, pool_full_takes_nothing));
KTEST_SUITE(cm_peer_bound, KTEST_CASE(cm_peer_bound, full));

} // namespace ktest_cm_admission
