// SPDX-License-Identifier: GPL-2.0
// kstd/inflight.h - what teardown waits on without polling. InFlight: a count of operations
// in flight that teardown can wait out: begin()
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

// A condition that only another context sees become true (NAPI: "the send ring is empty"),
// waited for by one sleeper (stop()): the waiter arms, checks the condition itself, then
// sleeps in wait_var_event until the other context, having made the condition true,
// signals. Both sides order their store before their load with a full barrier (the waiter
// here; the signaller before signal()), so either the waiter sees the condition or the
// signaller sees it armed - never neither (the store-buffering pattern).
class CondWait : NonCopyable {
public:
	// True once cond() held; false after timeout_ms without it (then disarmed: a late
	// signal is a no-op).
	template <typename Cond> bool wait(Cond &&cond, unsigned int timeout_ms)
	{
		__atomic_store_n(&armed_, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		const bool ok = cond() || kapi_wait_var_zero(&armed_, timeout_ms) == 0;
		__atomic_store_n(&armed_, 0, __ATOMIC_RELAXED);
		return ok;
	}
	// The other context, after a full barrier that follows the store which made the
	// condition true, and only when it saw the condition true. Cheap when nobody waits.
	void signal()
	{
		if (__atomic_load_n(&armed_, __ATOMIC_RELAXED) && __atomic_exchange_n(&armed_, 0, __ATOMIC_ACQ_REL))
			kapi_wake_var(&armed_);
	}
	bool armed() const { return __atomic_load_n(&armed_, __ATOMIC_RELAXED) != 0; }

private:
	int armed_ = 0;
};

} // namespace kstd
