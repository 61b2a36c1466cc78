// SPDX-License-Identifier: GPL-2.0
// test_ud_repair.cpp: when the UD QP in ERROR is reset and brought back (UdRepair): only
// when asked and the QP is in ERROR (or its state unknown, or a repair failed half-way),
// with a doubling back-off after each failed attempt and a bound on attempts.
#include "ipoib_ud_repair.h"
#include "ktest.h"

using namespace ipoib;
using kstd::u32;
using kstd::u64;

namespace ktest_ud_repair {

KTEST(ud_repair, nothing_without_a_request)
{
	UdRepair r;
	u32 wait = 0;
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, 1000, wait) == UdRepair::Step::None);
	EXPECT_FALSE(r.wanted());
}

KTEST(ud_repair, a_qp_in_error_is_repaired_once)
{
	UdRepair r;
	u32 wait = 0;
	r.request();
	EXPECT_TRUE(r.wanted());
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, 1000, wait) == UdRepair::Step::Now);
	EXPECT_FALSE(r.wanted());	// taken: a request during the repair asks again
	EXPECT_TRUE(r.done(true, 1001) == UdRepair::Step::None);
	EXPECT_TRUE(r.next(KAPI_QPS_RTS, 1002, wait) == UdRepair::Step::None);
	EXPECT_EQ(r.failures(), 0u);
}

// The fatal event arrives after the flushes that already brought the repair: by then the QP
// is in RTS and the request is stale. SQE is the send-error recovery's (UdQp::recover).
KTEST(ud_repair, a_stale_request_is_dropped)
{
	UdRepair r;
	u32 wait = 0;
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_RTS, 1000, wait) == UdRepair::Step::None);
	EXPECT_FALSE(r.wanted());
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_SQE, 1000, wait) == UdRepair::Step::None);
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_OTHER, 1000, wait) == UdRepair::Step::None);	// never brought up
	r.request();
	EXPECT_TRUE(r.next(-5 /* the query failed */, 1000, wait) == UdRepair::Step::Now);
}

KTEST(ud_repair, failures_back_off_then_give_up)
{
	UdRepair r;
	u32 wait = 0;
	u64 now = 1000;
	r.request();
	for (u32 i = 0; i < UdRepair::kMaxAttempts; i++) {
		// a failed attempt may leave the QP half-way (RESET, INIT): still repaired
		ASSERT_TRUE(r.next(i ? int(KAPI_QPS_OTHER) : int(KAPI_QPS_ERR), now, wait) == UdRepair::Step::Now);
		const UdRepair::Step s = r.done(false, now);
		if (i + 1 == UdRepair::kMaxAttempts) {
			EXPECT_TRUE(s == UdRepair::Step::GaveUp);
			break;
		}
		EXPECT_TRUE(s == UdRepair::Step::Later);
		EXPECT_TRUE(r.wanted());	// retried without another request
		const u32 backoff = UdRepair::kFirstBackoffMs << i;
		EXPECT_TRUE(r.next(KAPI_QPS_ERR, now + 1, wait) == UdRepair::Step::Later);
		EXPECT_EQ(wait, backoff - 1);
		now += backoff;
	}
	EXPECT_TRUE(r.gave_up());
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, now + 100000, wait) == UdRepair::Step::None);
	r.reset();	// ifdown/ifup: a new start
	r.request();
	EXPECT_FALSE(r.gave_up());
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, now + 100001, wait) == UdRepair::Step::Now);
}

KTEST(ud_repair, success_clears_the_back_off)
{
	UdRepair r;
	u32 wait = 0;
	r.request();
	ASSERT_TRUE(r.next(KAPI_QPS_ERR, 1000, wait) == UdRepair::Step::Now);
	EXPECT_TRUE(r.done(false, 1000) == UdRepair::Step::Later);
	ASSERT_TRUE(r.next(KAPI_QPS_ERR, 1000 + UdRepair::kFirstBackoffMs, wait) == UdRepair::Step::Now);
	EXPECT_TRUE(r.done(true, 1300) == UdRepair::Step::None);
	EXPECT_EQ(r.failures(), 0u);
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, 1301, wait) == UdRepair::Step::Now);	// no back-off left
}

KTEST_SUITE(ud_repair, KTEST_CASE(ud_repair, nothing_without_a_request), KTEST_CASE(ud_repair, a_qp_in_error_is_repaired_once),
	    KTEST_CASE(ud_repair, a_stale_request_is_dropped), KTEST_CASE(ud_repair, failures_back_off_then_give_up),
	    KTEST_CASE(ud_repair, success_clears_the_back_off));

} // namespace ktest_ud_repair
