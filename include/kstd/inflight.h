// SPDX-License-Identifier: GPL-2.0
// kstd/inflight.h - a count of operations in flight that teardown can wait out: begin()
// before handing a callback to the kernel, end() in the callback, wait_idle() sleeps until
// the count is zero (wait_var_event/wake_up_var in the shim; no polling). end()'s decrement
// is fully ordered and kapi_wake_var() adds smp_mb() before wake_up_var()'s
// waitqueue_active() check, so a waiter that just queued itself is never missed.
#pragma once

#include "kstd/base.h"
#include "kstd/log.h"

namespace kstd {

class InFlight : NonCopyable {
public:
	void begin() { __atomic_fetch_add(&n_, 1, __ATOMIC_RELAXED); }
	void end()
	{
		if (__atomic_sub_fetch(&n_, 1, __ATOMIC_SEQ_CST) == 0)
			kapi_wake_var(&n_);
	}
	int count() const { return __atomic_load_n(&n_, __ATOMIC_ACQUIRE); }
	// Sleeps until nothing is in flight; logs once if that takes longer than warn_ms, and
	// gives up with a WARN after another give_up_ms: a count that never drains is a lost
	// end() (a callback refused by its context check), and hanging teardown (rmmod, ip
	// link del) in D state forever helps nobody. Pick give_up_ms well past the longest
	// time the kernel may take to call back. False when it gave up.
	bool wait_idle(const Logger &log, const char *what, unsigned int warn_ms, unsigned int give_up_ms)
	{
		if (kapi_wait_var_zero(&n_, warn_ms) == 0)
			return true;
		log.warn("still waiting for %d %s", count(), what);
		if (kapi_wait_var_zero(&n_, give_up_ms) == 0)
			return true;
		KSTD_WARN_ON(true);
		log.err("giving up on %d %s after %u ms", count(), what, warn_ms + give_up_ms);
		return false;
	}

private:
	int n_ = 0;
};

} // namespace kstd
