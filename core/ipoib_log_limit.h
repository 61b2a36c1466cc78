// SPDX-License-Identifier: GPL-2.0
// ipoib_log_limit.h - a log line that a peer can trigger at packet or connection rate is
// printed at most kBurst times per kIntervalMs (the kernel's printk_ratelimit defaults:
// 10 per 5 s); the next line printed says how many were left out. Every event behind such a
// line is counted anyway (ethtool -S), so the log only samples them. Pure (the caller passes
// the time): host-tested (kunit/host/test_log_limit.cpp).
#pragma once

#include "kstd/types.h"

namespace ipoib {

class LogLimit : kstd::NonCopyable {
public:
	static constexpr kstd::u64 kIntervalMs = 5000;
	static constexpr kstd::u32 kBurst = 10;

	// Any context, lock-free: true when the line may be printed now; then suppressed is the
	// number of lines left out since the last one printed (0: none). Concurrent callers at
	// an interval's start may print a line or two more than kBurst: a bound, not a count.
	bool allow(kstd::u64 now_ms, kstd::u32 &suppressed)
	{
		const kstd::u64 now = now_ms + 1;	// begin_ 0: no interval yet
		kstd::u64 begin = __atomic_load_n(&begin_, __ATOMIC_RELAXED);
		if ((!begin || now - begin >= kIntervalMs) &&
		    __atomic_compare_exchange_n(&begin_, &begin, now, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			__atomic_store_n(&printed_, 0, __ATOMIC_RELAXED);
		if (__atomic_load_n(&printed_, __ATOMIC_RELAXED) < kBurst &&
		    __atomic_add_fetch(&printed_, 1, __ATOMIC_RELAXED) <= kBurst) {
			suppressed = __atomic_exchange_n(&missed_, 0, __ATOMIC_RELAXED);
			return true;
		}
		__atomic_add_fetch(&missed_, 1, __ATOMIC_RELAXED);
		return false;
	}

private:
	kstd::u64 begin_ = 0;	// start of the current interval, ms + 1 (0: none yet)
	kstd::u32 printed_ = 0;	// lines printed in it
	kstd::u32 missed_ = 0;	// lines left out since the last one printed
};

} // namespace ipoib
