// SPDX-License-Identifier: GPL-2.0
// test_ud_repair.cpp: when the UD QP in ERROR is reset and brought back (UdRepair): only
// when asked and the QP is in ERROR (or its state unknown, or a repair failed half-way),
// with a doubling back-off after each attempt (failed, or followed by an ERROR within
// kSettleMs), and a bound on failed attempts.
#include "core/ud/ipoib_ud_repair.h"
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

// r asked to repair at now, then n attempts (n <= kMaxAttempts), each made when its back-off
// allows and each failing: true when every one ran and came back as it should (Later; GaveUp
// for the kMaxAttempts-th failure in a row). now ends at the time of the last attempt.
bool fail_attempts(UdRepair &r, u64 &now, u32 n)
{
	u32 wait = 0;
	r.request();
	for (u32 i = 0; i < n; i++) {
		UdRepair::Step s = r.next(KAPI_QPS_ERR, now, wait);
		if (s == UdRepair::Step::Later) {
			now += wait;
			s = r.next(KAPI_QPS_ERR, now, wait);
		}
		if (s != UdRepair::Step::Now)
			return false;
		const bool last = r.failures() + 1 >= UdRepair::kMaxAttempts;
		if (r.done(false, now) != (last ? UdRepair::Step::GaveUp : UdRepair::Step::Later))
			return false;
	}
	return true;
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
	EXPECT_TRUE(r.carrier_held());
	r.request();	// a request while given up changes nothing: the rearm is due at its time
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, now + 1, wait) == UdRepair::Step::Later);
	EXPECT_EQ(wait, UdRepair::rearm_delay_ms(0) - 1);
	r.reset();	// ifdown/ifup: a new start, at once
	EXPECT_FALSE(r.carrier_held());
	r.request();
	EXPECT_FALSE(r.gave_up());
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, now + 100001, wait) == UdRepair::Step::Now);
}

// A repair that succeeds does not end the back-off: an ERROR again within kSettleMs is
// repaired only after the next doubling, and the failures before the success still count
// toward giving up. Once the QP stayed in RTS that long, both start over.
KTEST(ud_repair, a_quick_error_after_a_success_keeps_the_back_off)
{
	UdRepair r;
	u32 wait = 0;
	u64 now = 1000;
	ASSERT_TRUE(fail_attempts(r, now, 1));
	ASSERT_TRUE(r.next(KAPI_QPS_ERR, 1000 + UdRepair::kFirstBackoffMs, wait) == UdRepair::Step::Now);
	EXPECT_TRUE(r.done(true, 1300) == UdRepair::Step::None);
	EXPECT_FALSE(r.wanted());
	EXPECT_EQ(r.failures(), 1u);	// not cleared before the QP stayed in RTS kSettleMs
	r.request();	// in ERROR again 1 ms later
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, 1301, wait) == UdRepair::Step::Later);
	EXPECT_EQ(wait, 2 * UdRepair::kFirstBackoffMs - 1);	// the second attempt's doubling
	ASSERT_TRUE(r.next(KAPI_QPS_ERR, 1300 + 2 * UdRepair::kFirstBackoffMs, wait) == UdRepair::Step::Now);
	EXPECT_TRUE(r.done(true, 1700) == UdRepair::Step::None);
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, 1701, wait) == UdRepair::Step::Later);
	EXPECT_EQ(wait, 4 * UdRepair::kFirstBackoffMs - 1);
	// no repair for a request seen after the QP stayed up kSettleMs: none owed, counts cleared
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, 1700 + UdRepair::kSettleMs, wait) == UdRepair::Step::Now);
	EXPECT_EQ(r.failures(), 0u);
	EXPECT_TRUE(r.done(true, 1700 + UdRepair::kSettleMs) == UdRepair::Step::None);
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, 1701 + UdRepair::kSettleMs, wait) == UdRepair::Step::Later);
	EXPECT_EQ(wait, UdRepair::kFirstBackoffMs - 1);	// a new streak: the first back-off
}

// Back-to-back repairs that each succeed never give up, and their back-off is capped.
KTEST(ud_repair, quick_successes_are_capped_not_given_up)
{
	UdRepair r;
	u32 wait = 0;
	u64 now = 1000;
	for (u32 i = 0; i < 20; i++) {
		r.request();
		if (r.next(KAPI_QPS_ERR, now, wait) == UdRepair::Step::Later) {
			EXPECT_TRUE(wait <= UdRepair::kMaxBackoffMs);
			now += wait;
			ASSERT_TRUE(r.next(KAPI_QPS_ERR, now, wait) == UdRepair::Step::Now);
		}
		EXPECT_TRUE(r.done(true, now) == UdRepair::Step::None);
		now += 1;
	}
	EXPECT_FALSE(r.gave_up());
	EXPECT_EQ(r.failures(), 0u);
}

// Every attempt of a streak fails, each made when its back-off allows: r gives up at now.
bool give_up(UdRepair &r, u64 &now)
{
	return fail_attempts(r, now, UdRepair::kMaxAttempts) && r.gave_up();
}

// Given up, the repair is not dead for good: without any new request, the work is told to
// come back later, and at that time it tries again.
KTEST(ud_repair, giving_up_rearms_later)
{
	UdRepair r;
	u32 wait = 0;
	u64 now = 1000;
	ASSERT_TRUE(give_up(r, now));
	EXPECT_TRUE(r.wanted());	// no new request needed
	ASSERT_TRUE(r.next(KAPI_QPS_ERR, now + 1, wait) == UdRepair::Step::Later);
	EXPECT_GT(wait, 0u);
	const u64 due = now + 1 + wait;
	const UdRepair::Step s = r.next(KAPI_QPS_OTHER, due, wait);	// a failed attempt left it half-way
	EXPECT_TRUE(s != UdRepair::Step::None && s != UdRepair::Step::Later);
	EXPECT_TRUE(s == UdRepair::Step::Rearm);
	EXPECT_EQ(r.rearms(), 1u);
	EXPECT_TRUE(r.carrier_held());	// until a repair succeeds
	// The rearmed attempt fails: given up again at once, the next rearm twice as far.
	EXPECT_TRUE(r.done(false, due) == UdRepair::Step::GaveUp);
	EXPECT_TRUE(r.wanted());
	ASSERT_TRUE(r.next(KAPI_QPS_OTHER, due + 1, wait) == UdRepair::Step::Later);
	EXPECT_EQ(wait, UdRepair::rearm_delay_ms(1) - 1);
	const u64 due2 = due + UdRepair::rearm_delay_ms(1);
	ASSERT_TRUE(r.next(KAPI_QPS_OTHER, due2, wait) == UdRepair::Step::Rearm);
	EXPECT_EQ(r.rearms(), 2u);
	// This one succeeds: the carrier is no longer held; the QP staying up settles it all.
	EXPECT_TRUE(r.done(true, due2) == UdRepair::Step::None);
	EXPECT_FALSE(r.carrier_held());
	EXPECT_FALSE(r.gave_up());
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_ERR, due2 + UdRepair::kSettleMs, wait) == UdRepair::Step::Now);
	EXPECT_EQ(r.rearms(), 0u);
	EXPECT_EQ(r.failures(), 0u);
}

// A failed attempt after a success means the QP did not stay in RTS: that success no longer
// settles anything. Failures that run on past kSettleMs after it still count toward giving
// up (with the success kept, the first attempt after kSettleMs cleared them as if the QP had
// stayed up, and the streak started over at the first back-off).
KTEST(ud_repair, failures_after_a_success_still_give_up)
{
	UdRepair r;
	u32 wait = 0;
	r.request();
	ASSERT_TRUE(r.next(KAPI_QPS_ERR, 1000, wait) == UdRepair::Step::Now);
	ASSERT_TRUE(r.done(true, 1000) == UdRepair::Step::None);
	// In ERROR again within kSettleMs; every attempt fails, the run spanning past
	// 1000 + kSettleMs (attempts at 8000, 8400, 9200, 10800, 14000).
	u64 now = 8000;
	ASSERT_TRUE(fail_attempts(r, now, UdRepair::kMaxAttempts - 1));
	ASSERT_LT(now, 1000 + u64(UdRepair::kSettleMs));
	EXPECT_EQ(r.failures(), UdRepair::kMaxAttempts - 1);
	ASSERT_TRUE(r.next(KAPI_QPS_ERR, now, wait) == UdRepair::Step::Later);
	now += wait;
	ASSERT_GE(now, 1000 + u64(UdRepair::kSettleMs));
	ASSERT_TRUE(r.next(KAPI_QPS_ERR, now, wait) == UdRepair::Step::Now);
	EXPECT_EQ(r.failures(), UdRepair::kMaxAttempts - 1);	// not cleared: the QP never stayed up
	EXPECT_TRUE(r.done(false, now) == UdRepair::Step::GaveUp);
	EXPECT_TRUE(r.carrier_held());
}

// The rearm's back-off: 30 s, doubling, capped at 5 min.
KTEST(ud_repair, rearm_delay_doubles_to_a_cap)
{
	EXPECT_EQ(UdRepair::rearm_delay_ms(0), 30000u);
	EXPECT_EQ(UdRepair::rearm_delay_ms(1), 60000u);
	EXPECT_EQ(UdRepair::rearm_delay_ms(2), 120000u);
	EXPECT_EQ(UdRepair::rearm_delay_ms(3), 240000u);
	EXPECT_EQ(UdRepair::rearm_delay_ms(4), 300000u);
	EXPECT_EQ(UdRepair::rearm_delay_ms(5), 300000u);
	EXPECT_EQ(UdRepair::rearm_delay_ms(1000), 300000u);
}

// A QP found in RTS while given up (the provider brought it back itself). The failed attempts
// left the datapath stopped (receives not reposted, the queue stopped, UD sends dropped): the
// rearm must still run the repair, which restarts it, and the carrier is released only by
// that repair's success. Releasing it at the look alone brought the carrier back over a
// stopped queue.
KTEST(ud_repair, a_qp_back_in_rts_after_giving_up_is_still_repaired)
{
	UdRepair r;
	u32 wait = 0;
	u64 now = 1000;
	ASSERT_TRUE(give_up(r, now));
	ASSERT_TRUE(r.carrier_held());
	now += UdRepair::rearm_delay_ms(0);
	EXPECT_TRUE(r.next(KAPI_QPS_RTS, now, wait) == UdRepair::Step::Rearm);
	EXPECT_TRUE(r.carrier_held());	// not before the datapath runs again
	EXPECT_TRUE(r.done(true, now) == UdRepair::Step::None);
	EXPECT_FALSE(r.carrier_held());
	EXPECT_FALSE(r.gave_up());
	// the datapath runs again: a late request that finds RTS is stale
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_RTS, now + 1, wait) == UdRepair::Step::None);
	EXPECT_FALSE(r.wanted());
}

// Before giving up, too: a retry after a failed attempt that finds the QP in RTS (or SQE)
// repairs it (the datapath the failed attempt stopped is restarted only by a repair).
KTEST(ud_repair, rts_after_a_failed_attempt_is_repaired)
{
	UdRepair r;
	u32 wait = 0;
	u64 now = 1000;
	ASSERT_TRUE(fail_attempts(r, now, 1));
	EXPECT_TRUE(r.next(KAPI_QPS_RTS, 1000 + UdRepair::kFirstBackoffMs, wait) == UdRepair::Step::Now);
	EXPECT_TRUE(r.done(true, 1000 + UdRepair::kFirstBackoffMs) == UdRepair::Step::None);
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_SQE, 1001 + UdRepair::kFirstBackoffMs, wait) == UdRepair::Step::None);
}

// ifdown/ifup (reset) restarts the datapath itself (open()): a QP in RTS then needs nothing.
KTEST(ud_repair, reset_forgets_the_stopped_datapath)
{
	UdRepair r;
	u32 wait = 0;
	u64 now = 1000;
	ASSERT_TRUE(fail_attempts(r, now, 1));
	r.reset();
	r.request();
	EXPECT_TRUE(r.next(KAPI_QPS_RTS, 1001, wait) == UdRepair::Step::None);
}

KTEST_SUITE(ud_repair, KTEST_CASE(ud_repair, nothing_without_a_request), KTEST_CASE(ud_repair, a_qp_in_error_is_repaired_once),
	    KTEST_CASE(ud_repair, a_stale_request_is_dropped), KTEST_CASE(ud_repair, failures_back_off_then_give_up),
	    KTEST_CASE(ud_repair, a_quick_error_after_a_success_keeps_the_back_off),
	    KTEST_CASE(ud_repair, quick_successes_are_capped_not_given_up), KTEST_CASE(ud_repair, giving_up_rearms_later),
	    KTEST_CASE(ud_repair, rearm_delay_doubles_to_a_cap), KTEST_CASE(ud_repair, a_qp_back_in_rts_after_giving_up_is_still_repaired),
	    KTEST_CASE(ud_repair, rts_after_a_failed_attempt_is_repaired), KTEST_CASE(ud_repair, reset_forgets_the_stopped_datapath),
	    KTEST_CASE(ud_repair, failures_after_a_success_still_give_up));

} // namespace ktest_ud_repair
