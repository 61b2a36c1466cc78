// SPDX-License-Identifier: GPL-2.0
// test_cm_admission.cpp - the REQ admission bounds (ipoib_cm_admission.h): the pool of
// unanswered passive connections (its size from cm_req_pool and the connection limit, take
// and put) and the peer-table bound.
#include "ktest.h"
#include "ipoib_cm_admission.h"

namespace ktest_cm_admission {

using ipoib::peers_full;
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
KTEST_SUITE(cm_peer_bound, KTEST_CASE(cm_peer_bound, full));

} // namespace ktest_cm_admission
