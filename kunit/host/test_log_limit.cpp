// SPDX-License-Identifier: GPL-2.0
// test_log_limit.cpp - LogLimit (ipoib_log_limit.h): kBurst lines per interval, the rest
// left out and reported with the next line printed.
#include "ktest.h"
#include "core/ipoib_log_limit.h"

namespace ktest_log_limit {

using ipoib::LogLimit;
using kstd::u32;
using kstd::u64;

KTEST(log_limit, burst_then_suppressed_then_reported)
{
	LogLimit l;
	u32 missed = 99;
	u64 t = 1000;
	for (u32 i = 0; i < LogLimit::kBurst; i++) {
		ASSERT_TRUE(l.allow(t + i, missed));
		EXPECT_EQ(missed, 0u);
	}
	for (u32 i = 0; i < 1000; i++)
		EXPECT_FALSE(l.allow(t + 100, missed));
	EXPECT_FALSE(l.allow(t + LogLimit::kIntervalMs - 1, missed));
	// a new interval: printed again, with the count of what was left out
	ASSERT_TRUE(l.allow(t + LogLimit::kIntervalMs, missed));
	EXPECT_EQ(missed, 1001u);
	ASSERT_TRUE(l.allow(t + LogLimit::kIntervalMs, missed));
	EXPECT_EQ(missed, 0u);
}

KTEST(log_limit, time_zero_and_a_peer_flood)
{
	// now_ms 0 (the first jiffies) still starts an interval; a flood of a million lines over
	// 50 s prints at most kBurst per 5 s
	LogLimit l;
	u32 missed = 0, printed = 0;
	u64 left_out = 0;
	for (u32 i = 0; i < 1000000; i++) {
		if (l.allow(u64(i) / 20, missed)) {
			printed++;
			left_out += missed;
		}
	}
	EXPECT_LE(printed, 10u * LogLimit::kBurst + LogLimit::kBurst);
	EXPECT_GE(printed, 10u * LogLimit::kBurst);
	EXPECT_LE(left_out, 1000000u - printed);
	EXPECT_GE(left_out + printed + (1000000u / 10), 1000000u);
}

KTEST_SUITE(log_limit, KTEST_CASE(log_limit, burst_then_suppressed_then_reported),
	    KTEST_CASE(log_limit, time_zero_and_a_peer_flood));

} // namespace ktest_log_limit
