// SPDX-License-Identifier: GPL-2.0
// ipoib_work.h - when an interface's work item runs (the shim only queues it, kapi_netdev.h).
// One work item serves every deferred job of an interface (flushes, joins and their
// back-off, the AH reaper, dev_addr retries), so requests for it must combine: a request
// only ever brings the work forward, never pushes it back (a port-event flush asked for now
// must not wait behind a join back-off asked for later). The work re-arms whatever it still
// needs when it runs.
#pragma once

#include "kstd/base.h"

namespace ipoib {

// A pending run due in due_ms is moved to delay_ms only if that is earlier.
constexpr bool work_bring_forward(kstd::u32 delay_ms, kstd::u64 due_ms) { return delay_ms < due_ms; }

inline void schedule_work(kapi_netdev *nd, kstd::u32 delay_ms)
{
	if (!delay_ms) {
		kapi_netdev_work_mod(nd, 0);
		return;
	}
	if (kapi_netdev_work_queue(nd, delay_ms))
		return;	// was idle: queued with our deadline
	// Pending: move it only if ours is earlier (a racy read; the worst case is an early run).
	kstd::u64 due = 0;
	if (kapi_netdev_work_due_in(nd, &due) && work_bring_forward(delay_ms, due))
		kapi_netdev_work_mod(nd, delay_ms);
}

} // namespace ipoib
