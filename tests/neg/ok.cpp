// SPDX-License-Identifier: GPL-2.0
// Positive control: must build and pass every gate. Touches every kstd header so a
// broken harness (or library) cannot make the whole suite "pass" by failing everything.
// expect-ok
#include "kstd/list.h"
#include "kstd/lock.h"
#include "kstd/log.h"
#include "kstd/refcount.h"
#include "kstd/ring.h"
#include "kstd/string.h"
#include "kstd/unique.h"

struct Item : kstd::ListLink<> {
	kstd::RefCount ref;
	int v = 0;
	void get() { ref.get(); }
	void put()
	{
		if (ref.put())
			delete this;
	}
};

extern "C" int neg_ok(void) noexcept;
extern "C" int neg_ok(void) noexcept
{
	kstd::SpinLock lock(KAPI_LOCK_SELFTEST_A);
	kstd::List<Item> list;
	auto r = kstd::make_unique<Item>(kstd::Gfp::Kernel);
	if (!r.ok())
		return kstd::to_errno(r.status());
	{
		kstd::SpinGuard g(lock);
		list.push_back(*r.take().release());
	}
	kstd::Ring<int, 8> ring;
	if (!ring.push(1))
		return -1;
	kstd::Ref<Item> ref = kstd::Ref<Item>::adopt(list.pop_front());
	kstd::u32 port = 0;
	kstd::log.info("ok %d %zu", int(kstd::parse_u32("12", 99, port)), kstd::StrView("x").size());
	return 0;
}
