// SPDX-License-Identifier: GPL-2.0
// ipoib_handles.h - single owners of the kernel objects an interface creates, as kstd::Handle
// instances: releasing one is resetting its handle, and a handle still set when its owner
// is destroyed releases itself. Interface::teardown resets them explicitly, in the order
// the kernel needs (unpublish -> quiesce -> free); the destructors are the backstop.
#pragma once

#include "kstd/unique.h"

namespace ipoib {

struct PdTraits {
	using Pointer = kapi_pd *;
	static void release(kapi_pd *p) { kapi_pd_free(p); }
};
struct CqTraits {
	using Pointer = kapi_cq *;
	static void release(kapi_cq *p) { kapi_cq_destroy(p); }
};
// Unregistering waits for a handler that is running (ib_unregister_event_handler).
struct EventHandlerTraits {
	using Pointer = kapi_event_handler *;
	static void release(kapi_event_handler *p) { kapi_ib_event_unregister(p); }
};
// Removal waits for readers still inside a show function.
struct DebugfsTraits {
	using Pointer = kapi_debugfs *;
	static void release(kapi_debugfs *p) { kapi_debugfs_remove(p); }
};
// A delayed work: cancelled (waiting for a running one, which may re-arm itself) then freed.
struct DworkTraits {
	using Pointer = kapi_dwork *;
	static void release(kapi_dwork *p)
	{
		kapi_dwork_cancel(p);
		kapi_dwork_free(p);
	}
};

using PdHandle = kstd::Handle<PdTraits>;
using CqHandle = kstd::Handle<CqTraits>;
using EventHandle = kstd::Handle<EventHandlerTraits>;
using DebugfsHandle = kstd::Handle<DebugfsTraits>;
using DworkHandle = kstd::Handle<DworkTraits>;

} // namespace ipoib
