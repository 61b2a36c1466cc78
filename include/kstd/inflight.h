// SPDX-License-Identifier: GPL-2.0
// kstd/inflight.h - a count of operations in flight that teardown can wait out: begin()
// before handing a callback to the kernel, end() in the callback, wait_idle() sleeps until
// the count is zero (wait_var_event/wake_up_var in the shim; no polling).
#pragma once

#include "kstd/base.h"
#include "kstd/log.h"

namespace kstd {

class InFlight : NonCopyable {
public:
	void begin() { __atomic_fetch_add(&n_, 1, __ATOMIC_RELAXED); }
	void end()
	{
		if (__atomic_sub_fetch(&n_, 1, __ATOMIC_RELEASE) == 0)
			kapi_wake_var(&n_);
	}
	int count() const { return __atomic_load_n(&n_, __ATOMIC_ACQUIRE); }
	// Sleeps until nothing is in flight; logs once if that takes longer than warn_ms.
	void wait_idle(const Logger &log, const char *what, unsigned int warn_ms)
	{
		if (kapi_wait_var_zero(&n_, warn_ms) == 0)
			return;
		log.warn("still waiting for %d %s", count(), what);
		while (kapi_wait_var_zero(&n_, warn_ms) != 0) {
		}
	}

private:
	int n_ = 0;
};

} // namespace kstd
