// SPDX-License-Identifier: GPL-2.0
// test_kstd.cpp - the freestanding C++ support library (include/kstd/): intrusive list,
// ring, refcount, Status/Result, Unique/Handle, allocation (incl. failure paths), strings,
// lock guards. Every case also runs under the per-case allocation balance check.
#include "ktest.h"
#include "kstd/bits.h"
#include "kstd/list.h"
#include "kstd/lock.h"
#include "kstd/refcount.h"
#include "kstd/result.h"
#include "kstd/ring.h"
#include "kstd/string.h"
#include "kstd/unique.h"

using namespace kstd;

// A named namespace, not an anonymous one: KTEST_SUITE's extern "C" table must keep
// external linkage.
namespace ktest_kstd {

// ---------------------------------------------------------------- base
KTEST(kstd_base, warn_on_returns_condition)
{
	ktest::WarnCatcher w;
	int x = 3;
	EXPECT_FALSE(KSTD_WARN_ON(x == 4));
	EXPECT_TRUE(KSTD_WARN_ON(x == 3));
	int evaluated = 0;
	EXPECT_FALSE(KSTD_WARN_ON(++evaluated == 2)); // evaluated exactly once
	EXPECT_EQ(evaluated, 1);
	KSTD_BUG_ON(x != 3); // false: no BUG
	EXPECT_EQ(w.end(), 1);
}

// A timestamp written after the caller read now (t > now) is no time elapsed, not a wrap
// to ~2^64 ms that passes every idle/overdue threshold.
KTEST(kstd_base, ms_since_clamps_a_later_timestamp)
{
	EXPECT_EQ(ms_since(1000, 400), u64(600));
	EXPECT_EQ(ms_since(1000, 1000), u64(0));
	EXPECT_EQ(ms_since(1000, 1001), u64(0));
	EXPECT_EQ(ms_since(0, ~u64(0)), u64(0));
	EXPECT_EQ(ms_since(~u64(0), 0), ~u64(0));
	EXPECT_TRUE(ms_since(5000, 5003) < 1000);	// the idle check: not idle
}

// round_up_pow2 (kstd/bits.h): both ends are defined (0 -> 1; above 2^63 -> 0, the overflow
// a caller can test for), every power of two maps to itself and its successor to the next.
KTEST(kstd_base, round_up_pow2_edges)
{
	EXPECT_EQ(round_up_pow2(0), u64(1));
	EXPECT_EQ(round_up_pow2(1), u64(1));
	EXPECT_EQ(round_up_pow2(2), u64(2));
	EXPECT_EQ(round_up_pow2(3), u64(4));
	EXPECT_EQ(round_up_pow2(9216), u64(16384));	// a softib RC receive WQE array
	for (u32 k = 1; k < 64; k++) {
		const u64 p = u64(1) << k;
		EXPECT_EQ(round_up_pow2(p - 1), k == 1 ? u64(1) : p);
		EXPECT_EQ(round_up_pow2(p), p);
		EXPECT_EQ(round_up_pow2(p + 1), k == 63 ? u64(0) : p << 1);
	}
	// Around 2^31: a u32 caller narrowing the result must bound n itself.
	EXPECT_EQ(round_up_pow2(0x7fffffffu), u64(0x80000000u));
	EXPECT_EQ(round_up_pow2(0x80000000u), u64(0x80000000u));
	EXPECT_EQ(round_up_pow2(0x80000001u), u64(1) << 32);
	EXPECT_EQ(round_up_pow2(0xffffffffu), u64(1) << 32);
	// Above 2^63 no u64 power of two holds n.
	EXPECT_EQ(round_up_pow2(u64(1) << 63), u64(1) << 63);
	EXPECT_EQ(round_up_pow2((u64(1) << 63) + 1), u64(0));
	EXPECT_EQ(round_up_pow2(~u64(0)), u64(0));
	static_assert(round_up_pow2(4096) == 4096 && round_up_pow2(4097) == 8192);	// constexpr
}

KTEST_SUITE(kstd_base, KTEST_CASE(kstd_base, warn_on_returns_condition),
	    KTEST_CASE(kstd_base, ms_since_clamps_a_later_timestamp), KTEST_CASE(kstd_base, round_up_pow2_edges));

// ---------------------------------------------------------------- list
struct Item : ListLink<> {
	explicit Item(int v) : v(v) {}
	int v;
};

struct TagA;
struct TagB;
struct Multi : ListLink<TagA>, ListLink<TagB> {
	explicit Multi(int v) : v(v) {}
	int v;
};

// Collect the list's values into out (at most n); returns how many.
template <typename L> usize values(L &l, int *out, usize n)
{
	usize i = 0;
	for (auto &e : l)
		if (i < n)
			out[i++] = e.v;
	return i;
}

KTEST(kstd_list, empty)
{
	List<Item> l;
	EXPECT_TRUE(l.empty());
	EXPECT_EQ(l.size(), 0u);
	EXPECT_NULL(l.front());
	EXPECT_NULL(l.back());
	EXPECT_NULL(l.pop_front());
	EXPECT_FALSE(l.begin() != l.end());
}

KTEST(kstd_list, push_back_keeps_order)
{
	Item a(1), b(2), c(3);
	List<Item> l;
	l.push_back(a);
	l.push_back(b);
	l.push_back(c);
	int v[4] = {};
	ASSERT_EQ(values(l, v, 4), 3u);
	EXPECT_EQ(v[0], 1);
	EXPECT_EQ(v[1], 2);
	EXPECT_EQ(v[2], 3);
	EXPECT_EQ(l.front(), &a);
	EXPECT_EQ(l.back(), &c);
	EXPECT_EQ(l.size(), 3u);
	while (l.pop_front()) {
	}
}

KTEST(kstd_list, push_front_reverses)
{
	Item a(1), b(2), c(3);
	List<Item> l;
	l.push_front(a);
	l.push_front(b);
	l.push_front(c);
	int v[4] = {};
	ASSERT_EQ(values(l, v, 4), 3u);
	EXPECT_EQ(v[0], 3);
	EXPECT_EQ(v[1], 2);
	EXPECT_EQ(v[2], 1);
	while (l.pop_front()) {
	}
}

KTEST(kstd_list, remove_middle_and_relink)
{
	Item a(1), b(2), c(3);
	List<Item> l;
	l.push_back(a);
	l.push_back(b);
	l.push_back(c);
	List<Item>::remove(b);
	EXPECT_FALSE(List<Item>::linked(b));
	EXPECT_TRUE(List<Item>::linked(a));
	int v[4] = {};
	ASSERT_EQ(values(l, v, 4), 2u);
	EXPECT_EQ(v[0], 1);
	EXPECT_EQ(v[1], 3);
	// Removing an unlinked element is harmless (the node points to itself).
	List<Item>::remove(b);
	EXPECT_EQ(l.size(), 2u);
	l.push_back(b);
	EXPECT_EQ(l.back(), &b);
	EXPECT_EQ(l.size(), 3u);
	while (l.pop_front()) {
	}
	EXPECT_TRUE(l.empty());
	EXPECT_FALSE(List<Item>::linked(a));
}

KTEST(kstd_list, one_element_on_two_lists)
{
	Multi x(7), y(8);
	List<Multi, TagA> la;
	List<Multi, TagB> lb;
	la.push_back(x);
	la.push_back(y);
	lb.push_back(y);
	lb.push_back(x);
	EXPECT_EQ(la.front(), &x);
	EXPECT_EQ(lb.front(), &y);
	List<Multi, TagA>::remove(x);
	EXPECT_EQ(la.size(), 1u);
	EXPECT_EQ(lb.size(), 2u);
	EXPECT_TRUE((List<Multi, TagB>::linked(x)));
	EXPECT_EQ(lb.back()->v, 7);
	while (la.pop_front()) {
	}
	while (lb.pop_front()) {
	}
}

KTEST(kstd_list, pop_front_drains_in_order)
{
	Item items[5] = {Item(0), Item(1), Item(2), Item(3), Item(4)};
	List<Item> l;
	for (auto &i : items)
		l.push_back(i);
	int expect = 0;
	while (Item *i = l.pop_front()) {
		EXPECT_EQ(i->v, expect);
		EXPECT_FALSE(List<Item>::linked(*i));
		expect++;
	}
	EXPECT_EQ(expect, 5);
}

KTEST_SUITE(kstd_list, KTEST_CASE(kstd_list, empty), KTEST_CASE(kstd_list, push_back_keeps_order),
	    KTEST_CASE(kstd_list, push_front_reverses), KTEST_CASE(kstd_list, remove_middle_and_relink),
	    KTEST_CASE(kstd_list, one_element_on_two_lists), KTEST_CASE(kstd_list, pop_front_drains_in_order));

// ---------------------------------------------------------------- ring
KTEST(kstd_ring, empty)
{
	Ring<int, 4> r;
	EXPECT_EQ((Ring<int, 4>::capacity()), 4u);
	EXPECT_TRUE(r.empty());
	EXPECT_FALSE(r.full());
	EXPECT_EQ(r.size(), 0u);
	EXPECT_NULL(r.front());
	int out = -1;
	EXPECT_FALSE(r.pop(out));
	EXPECT_EQ(out, -1);
}

KTEST(kstd_ring, full_rejects)
{
	Ring<int, 4> r;
	for (int i = 0; i < 4; i++)
		EXPECT_TRUE(r.push(i));
	EXPECT_TRUE(r.full());
	EXPECT_FALSE(r.push(99));
	EXPECT_EQ(r.size(), 4u);
	ASSERT_NOT_NULL(r.front());
	EXPECT_EQ(*r.front(), 0);
}

KTEST(kstd_ring, fifo_across_wraparound)
{
	Ring<int, 4> r;
	int next_in = 0, next_out = 0;
	// 3 in, 2 out, many times: the indices wrap the mask repeatedly.
	for (int round = 0; round < 50; round++) {
		while (r.size() < 3)
			ASSERT_TRUE(r.push(next_in++));
		for (int k = 0; k < 2; k++) {
			int v = -1;
			ASSERT_TRUE(r.pop(v));
			ASSERT_EQ(v, next_out);
			next_out++;
		}
	}
	int v;
	while (r.pop(v))
		EXPECT_EQ(v, next_out++);
	EXPECT_EQ(next_out, next_in);
	EXPECT_TRUE(r.empty());
}

KTEST(kstd_ring, owns_move_only_values)
{
	// Unique<int> in the slots: whatever is still queued is freed by ~Ring (leak check).
	Ring<Unique<int>, 2> r;
	{
		auto a = make_unique<int>(Gfp::Kernel, 1);
		auto b = make_unique<int>(Gfp::Kernel, 2);
		ASSERT_TRUE(a.ok());
		ASSERT_TRUE(b.ok());
		EXPECT_TRUE(r.push(a.take()));
		EXPECT_TRUE(r.push(b.take()));
	}
	Unique<int> out;
	ASSERT_TRUE(r.pop(out));
	ASSERT_TRUE(static_cast<bool>(out));
	EXPECT_EQ(*out, 1);
	EXPECT_EQ(ktest_alloc_live(), 2);
}

KTEST(kstd_ring, capacity_one_copy_push)
{
	Ring<int, 1> r;
	const int v = 5;
	EXPECT_TRUE(r.push(v)); // the const T& overload
	EXPECT_TRUE(r.full());
	EXPECT_FALSE(r.push(v));
	int out = 0;
	for (int i = 0; i < 3; i++) {
		EXPECT_TRUE(r.pop(out));
		EXPECT_EQ(out, v + i);
		EXPECT_TRUE(r.push(v + i + 1));
	}
	EXPECT_EQ(r.size(), 1u);
}

KTEST_SUITE(kstd_ring, KTEST_CASE(kstd_ring, empty), KTEST_CASE(kstd_ring, full_rejects),
	    KTEST_CASE(kstd_ring, capacity_one_copy_push),
	    KTEST_CASE(kstd_ring, fifo_across_wraparound), KTEST_CASE(kstd_ring, owns_move_only_values));

// ---------------------------------------------------------------- refcount
constexpr u32 kSaturated = 0xc0000000u;

KTEST(kstd_refcount, get_put)
{
	RefCount r;
	EXPECT_EQ(r.read(), 1u);
	r.get();
	EXPECT_EQ(r.read(), 2u);
	EXPECT_FALSE(r.put());
	EXPECT_TRUE(r.put()); // the last one
	EXPECT_EQ(r.read(), 0u);
}

KTEST(kstd_refcount, try_get)
{
	RefCount live(1);
	EXPECT_TRUE(live.try_get());
	EXPECT_EQ(live.read(), 2u);
	RefCount dying(0);
	EXPECT_FALSE(dying.try_get());
	EXPECT_EQ(dying.read(), 0u);
}

KTEST(kstd_refcount, underflow_saturates_and_warns)
{
	RefCount r(1);
	EXPECT_TRUE(r.put());
	ktest::WarnCatcher w;
	EXPECT_FALSE(r.put()); // underflow: never "last" twice
	EXPECT_EQ(w.end(), 1);
	EXPECT_EQ(r.read(), kSaturated);
	// saturated: gets and puts no longer move it, and it never frees
	EXPECT_TRUE(r.try_get());
	EXPECT_FALSE(r.put());
}

KTEST(kstd_refcount, get_on_zero_warns)
{
	RefCount r(0);
	ktest::WarnCatcher w;
	r.get();
	EXPECT_EQ(w.end(), 1);
	EXPECT_EQ(r.read(), kSaturated);
}

// A refcounted heap object: the last put frees it (the leak check proves it happened).
struct Obj : NonCopyable {
	explicit Obj(int *freed) : freed(freed) {}
	~Obj() { (*freed)++; }
	void get() { rc.get(); }
	void put()
	{
		if (rc.put())
			delete this;
	}
	RefCount rc;
	int *freed;
};

KTEST(kstd_refcount, ref_owner)
{
	int freed = 0;
	Obj *o = new (Gfp::Kernel) Obj(&freed);
	ASSERT_NOT_NULL(o);
	{
		Ref<Obj> a = Ref<Obj>::adopt(o); // takes the initial reference
		EXPECT_EQ(o->rc.read(), 1u);
		Ref<Obj> b = Ref<Obj>::acquire(o);
		EXPECT_EQ(o->rc.read(), 2u);
		Ref<Obj> c(move(b));
		EXPECT_FALSE(static_cast<bool>(b));
		EXPECT_EQ(c.get(), o);
		EXPECT_EQ(o->rc.read(), 2u);
		c.reset();
		EXPECT_EQ(o->rc.read(), 1u);
		EXPECT_EQ(freed, 0);
		Ref<Obj> none = Ref<Obj>::acquire(nullptr);
		EXPECT_FALSE(static_cast<bool>(none));
	}
	EXPECT_EQ(freed, 1);
}

KTEST_SUITE(kstd_refcount, KTEST_CASE(kstd_refcount, get_put), KTEST_CASE(kstd_refcount, try_get),
	    KTEST_CASE(kstd_refcount, underflow_saturates_and_warns),
	    KTEST_CASE(kstd_refcount, get_on_zero_warns), KTEST_CASE(kstd_refcount, ref_owner));

// ---------------------------------------------------------------- Status / Result
Status step(bool good, Status bad) { return good ? Status::Ok : bad; }
constinit int g_steps_after_failure = 0;
Status two_steps(bool first_good)
{
	KSTD_TRY(step(first_good, Status::Busy));
	g_steps_after_failure++;
	KSTD_TRY(step(true, Status::Io));
	return Status::Ok;
}

KTEST(kstd_status_result, errno_mapping)
{
	EXPECT_EQ(to_errno(Status::Ok), 0);
	EXPECT_EQ(to_errno(Status::NoMem), -KAPI_ENOMEM);
	EXPECT_EQ(to_errno(Status::Invalid), -KAPI_EINVAL);
	EXPECT_EQ(from_errno(0), Status::Ok);
	EXPECT_EQ(from_errno(7), Status::Ok); // positive counts (e.g. bytes) are success
	EXPECT_EQ(from_errno(-KAPI_EOPNOTSUPP), Status::NotSupported);
	EXPECT_EQ(to_errno(from_errno(-KAPI_ETIMEDOUT)), -KAPI_ETIMEDOUT);
	EXPECT_EQ(to_errno(from_errno(-75)), -75); // unknown codes keep their value
	EXPECT_TRUE(ok(Status::Ok));
	EXPECT_FALSE(ok(Status::Again));
}

KTEST(kstd_status_result, try_propagates)
{
	g_steps_after_failure = 0;
	EXPECT_EQ(two_steps(false), Status::Busy);
	EXPECT_EQ(g_steps_after_failure, 0);
	EXPECT_OK(two_steps(true));
	EXPECT_EQ(g_steps_after_failure, 1);
}

struct Counted {
	explicit Counted(int *dtors, int v) : dtors(dtors), v(v) {}
	Counted(Counted &&o) : dtors(o.dtors), v(o.v) { o.v = -1; }
	~Counted()
	{
		if (v >= 0)
			(*dtors)++;
	}
	int *dtors;
	int v;
};

KTEST(kstd_status_result, value_and_failure)
{
	Result<int> good(5);
	ASSERT_TRUE(good.ok());
	EXPECT_EQ(good.status(), Status::Ok);
	EXPECT_EQ(good.value(), 5);
	Result<int> bad(Status::NoMem);
	EXPECT_FALSE(bad.ok());
	EXPECT_EQ(bad.status(), Status::NoMem);
	// Ok without a value is a bug: reported as Invalid, never as success.
	Result<int> bogus(Status::Ok);
	EXPECT_FALSE(bogus.ok());
	EXPECT_EQ(bogus.status(), Status::Invalid);
}

KTEST(kstd_status_result, destroys_value_once)
{
	int dtors = 0;
	{
		Result<Counted> r(Counted(&dtors, 1));
		ASSERT_TRUE(r.ok());
		Result<Counted> moved(move(r));
		ASSERT_TRUE(moved.ok());
		EXPECT_EQ(moved.value().v, 1);
		Counted out = moved.take();
		EXPECT_EQ(out.v, 1);
		EXPECT_EQ(dtors, 0);
	}
	EXPECT_EQ(dtors, 1);
	{
		Result<Counted> f(Status::Io); // no value: nothing to destroy
	}
	EXPECT_EQ(dtors, 1);
}

KTEST_SUITE(kstd_status_result, KTEST_CASE(kstd_status_result, errno_mapping),
	    KTEST_CASE(kstd_status_result, try_propagates), KTEST_CASE(kstd_status_result, value_and_failure),
	    KTEST_CASE(kstd_status_result, destroys_value_once));

// ---------------------------------------------------------------- Unique / Handle
struct Tracked : NonCopyable {
	Tracked(int *live, int v) : live(live), v(v) { (*live)++; }
	~Tracked() { (*live)--; }
	int *live;
	int v;
};

KTEST(kstd_unique, make_and_destroy)
{
	int live = 0;
	{
		auto r = make_unique<Tracked>(Gfp::Kernel, &live, 42);
		ASSERT_TRUE(r.ok());
		Unique<Tracked> u = r.take();
		EXPECT_EQ(live, 1);
		EXPECT_EQ(u->v, 42);
		EXPECT_EQ((*u).v, 42);
		EXPECT_EQ(ktest_alloc_live(), 1);
	}
	EXPECT_EQ(live, 0);
	EXPECT_EQ(ktest_alloc_live(), 0);
}

KTEST(kstd_unique, move_transfers_ownership)
{
	int live = 0;
	auto r1 = make_unique<Tracked>(Gfp::Kernel, &live, 1);
	auto r2 = make_unique<Tracked>(Gfp::Kernel, &live, 2);
	ASSERT_TRUE(r1.ok());
	ASSERT_TRUE(r2.ok());
	Unique<Tracked> a = r1.take();
	Unique<Tracked> b = r2.take();
	Unique<Tracked> c(move(a));
	EXPECT_FALSE(static_cast<bool>(a));
	EXPECT_EQ(c->v, 1);
	c = move(b); // frees the old object
	EXPECT_EQ(live, 1);
	EXPECT_EQ(c->v, 2);
	Tracked *raw = c.release();
	EXPECT_FALSE(static_cast<bool>(c));
	EXPECT_EQ(live, 1);
	delete raw;
	EXPECT_EQ(live, 0);
}

constinit int g_released = 0;
struct FakeTraits {
	using Pointer = int;
	static void release(int h) { g_released += h; }
};

KTEST(kstd_unique, handle_custom_release)
{
	g_released = 0;
	{
		Handle<FakeTraits> h(5);
		EXPECT_TRUE(static_cast<bool>(h));
		Handle<FakeTraits> h2(move(h));
		EXPECT_FALSE(static_cast<bool>(h));
		EXPECT_EQ(h2.get(), 5);
		h2.reset(7); // releases 5
		EXPECT_EQ(g_released, 5);
		Handle<FakeTraits> empty;
		EXPECT_FALSE(static_cast<bool>(empty));
	}
	EXPECT_EQ(g_released, 12); // 7 at scope end, nothing for the empty ones
}

KTEST(kstd_unique, make_unique_nomem_constructs_nothing)
{
	int live = 0;
	{
		ktest::AllocFailAll fail;
		auto r = make_unique<Tracked>(Gfp::Kernel, &live, 1);
		EXPECT_FALSE(r.ok());
		EXPECT_EQ(r.status(), Status::NoMem);
	}
	EXPECT_EQ(live, 0);
	EXPECT_EQ(ktest_alloc_live(), 0);
}

KTEST_SUITE(kstd_unique, KTEST_CASE(kstd_unique, make_and_destroy), KTEST_CASE(kstd_unique, move_transfers_ownership),
	    KTEST_CASE(kstd_unique, handle_custom_release),
	    KTEST_CASE(kstd_unique, make_unique_nomem_constructs_nothing));

// ---------------------------------------------------------------- allocation
// Beyond KMALLOC_MAX_SIZE (4 MiB on x86-64 6.1): kmalloc returns NULL. With __GFP_NOWARN it
// does so without a page-allocation-failure splat.
struct Huge {
	unsigned char b[64u << 20];
};
constexpr Gfp kKernelNoWarn = static_cast<Gfp>(KAPI_GFP_KERNEL | KAPI_GFP_NOWARN);

KTEST(kstd_alloc, new_delete_aligned)
{
	static constexpr usize sizes[] = {1, 7, 8, 24, 100, 4096};
	for (usize n : sizes) {
		auto *p = new (Gfp::Kernel) unsigned char[n];
		ASSERT_NOT_NULL(p);
		EXPECT_EQ(reinterpret_cast<uptr>(p) % KAPI_KMALLOC_MINALIGN, 0u);
		p[0] = 1;
		p[n - 1] = 2;
		delete[] p;
	}
	EXPECT_EQ(ktest_alloc_live(), 0);
}

KTEST(kstd_alloc, zeroed)
{
	auto *p = new (Gfp::KernelZero) unsigned char[256];
	ASSERT_NOT_NULL(p);
	unsigned sum = 0;
	for (int i = 0; i < 256; i++)
		sum += p[i];
	EXPECT_EQ(sum, 0u);
	delete[] p;
}

KTEST(kstd_alloc, huge_returns_null)
{
	long before = ktest_alloc_calls();
	Huge *h = new (kKernelNoWarn) Huge;
	EXPECT_NULL(h);
	EXPECT_EQ(ktest_alloc_calls(), before + 1);
	auto r = make_unique<Huge>(kKernelNoWarn);
	EXPECT_EQ(r.status(), Status::NoMem);
}

KTEST(kstd_alloc, injected_nth_failure)
{
	ktest_alloc_fail_nth(1);
	int *a = new (Gfp::Kernel) int(1);
	int *b = new (Gfp::Kernel) int(2); // this one fails
	int *c = new (Gfp::Kernel) int(3);
	EXPECT_NOT_NULL(a);
	EXPECT_NULL(b);
	EXPECT_NOT_NULL(c);
	EXPECT_EQ(ktest_alloc_live(), 2);
	delete a;
	delete b; // delete of nullptr is fine
	delete c;
}

// The pattern for testing an error path exhaustively: fail allocation k for k = 0, 1, ...
// until the operation succeeds; every failing run must leave nothing allocated.
Status build_chain(Unique<Tracked> (&out)[3], int *live)
{
	for (auto &slot : out) {
		auto r = make_unique<Tracked>(Gfp::Kernel, live, 0);
		if (!r.ok())
			return r.status();
		slot = r.take();
	}
	return Status::Ok;
}

KTEST(kstd_alloc, every_failure_point_unwinds)
{
	int live = 0;
	int k = 0;
	for (;; k++) {
		ASSERT_LT(k, 10);
		ktest_alloc_fail_nth(k);
		Status s;
		{
			Unique<Tracked> chain[3];
			s = build_chain(chain, &live);
		}
		ktest_alloc_fail_nth(-1);
		EXPECT_EQ(live, 0);
		EXPECT_EQ(ktest_alloc_live(), 0);
		if (ok(s))
			break;
		EXPECT_EQ(s, Status::NoMem);
	}
	EXPECT_EQ(k, 3); // three allocations, three failure points, then success
}

KTEST_SUITE(kstd_alloc, KTEST_CASE(kstd_alloc, new_delete_aligned), KTEST_CASE(kstd_alloc, zeroed),
	    KTEST_CASE(kstd_alloc, huge_returns_null), KTEST_CASE(kstd_alloc, injected_nth_failure),
	    KTEST_CASE(kstd_alloc, every_failure_point_unwinds));

// ---------------------------------------------------------------- strings
KTEST(kstd_string, strview_basics)
{
	StrView n(nullptr);
	EXPECT_TRUE(n.empty());
	StrView s("mlx5_0:1");
	EXPECT_EQ(s.size(), 8u);
	EXPECT_EQ(s.find(':'), 6u);
	EXPECT_EQ(s.find('x', 3), StrView::npos);
	EXPECT_STREQ(s.substr(0, 6), "mlx5_0");
	EXPECT_STREQ(s.substr(7), "1");
	EXPECT_STREQ(s.substr(100), ""); // clamped
	EXPECT_STREQ(s.substr(6, 100), ":1");
	EXPECT_FALSE(s == StrView("mlx5_0:2"));
	EXPECT_FALSE(s == StrView("mlx5_0"));
}

KTEST(kstd_string, copy_to_bounds)
{
	char buf[4] = {'x', 'x', 'x', 'x'};
	EXPECT_TRUE(StrView("abc").copy_to(buf, sizeof(buf)));
	EXPECT_STREQ(buf, "abc");
	char small[3] = {'y', 'y', 'y'};
	EXPECT_FALSE(StrView("abc").copy_to(small, sizeof(small)));
	EXPECT_EQ(small[0], 'y'); // nothing copied
	EXPECT_TRUE(StrView("").copy_to(small, 1));
	EXPECT_EQ(small[0], '\0');
}

KTEST(kstd_string, parse_u32)
{
	u32 v = 77;
	EXPECT_TRUE(kstd::parse_u32("0", 10, v));
	EXPECT_EQ(v, 0u);
	EXPECT_TRUE(kstd::parse_u32("65535", 65535, v));
	EXPECT_EQ(v, 65535u);
	EXPECT_TRUE(kstd::parse_u32("4294967295", 0xffffffffu, v));
	EXPECT_EQ(v, 0xffffffffu);
	v = 77;
	EXPECT_FALSE(kstd::parse_u32("65536", 65535, v));
	EXPECT_FALSE(kstd::parse_u32("4294967296", 0xffffffffu, v));
	EXPECT_FALSE(kstd::parse_u32("99999999999999999999999", 0xffffffffu, v));
	EXPECT_FALSE(kstd::parse_u32("", 10, v));
	EXPECT_FALSE(kstd::parse_u32("01", 10, v));
	EXPECT_FALSE(kstd::parse_u32("+1", 10, v));
	EXPECT_FALSE(kstd::parse_u32("-1", 10, v));
	EXPECT_FALSE(kstd::parse_u32("1a", 10, v));
	EXPECT_FALSE(kstd::parse_u32(" 1", 10, v));
	EXPECT_EQ(v, 77u); // untouched by every failure
}

KTEST_SUITE(kstd_string, KTEST_CASE(kstd_string, strview_basics), KTEST_CASE(kstd_string, copy_to_bounds),
	    KTEST_CASE(kstd_string, parse_u32));

// ---------------------------------------------------------------- locks
KTEST(kstd_lock, spin_guard)
{
	SpinLock l(KAPI_LOCK_SELFTEST_A);
	EXPECT_FALSE(ktest_spin_is_locked(l.raw()));
	{
		SpinGuard g(l);
		EXPECT_TRUE(ktest_spin_is_locked(l.raw()));
	}
	EXPECT_FALSE(ktest_spin_is_locked(l.raw()));
}

KTEST(kstd_lock, irqsave_guard_restores)
{
	SpinLock l(KAPI_LOCK_SELFTEST_A);
	EXPECT_FALSE(ktest_irqs_disabled());
	{
		SpinIrqSaveGuard g(l);
		EXPECT_TRUE(ktest_spin_is_locked(l.raw()));
		EXPECT_TRUE(ktest_irqs_disabled());
	}
	EXPECT_FALSE(ktest_irqs_disabled());
	EXPECT_FALSE(ktest_spin_is_locked(l.raw()));
}

KTEST(kstd_lock, nested_irqsave_restores_in_order)
{
	SpinLock a(KAPI_LOCK_SELFTEST_A), b(KAPI_LOCK_SELFTEST_B);
	EXPECT_FALSE(ktest_irqs_disabled());
	{
		SpinIrqSaveGuard ga(a);
		{
			SpinIrqSaveGuard gb(b);
			EXPECT_TRUE(ktest_irqs_disabled());
		}
		// the inner guard restores the state it found: still disabled
		EXPECT_TRUE(ktest_irqs_disabled());
		EXPECT_TRUE(ktest_spin_is_locked(a.raw()));
		EXPECT_FALSE(ktest_spin_is_locked(b.raw()));
	}
	EXPECT_FALSE(ktest_irqs_disabled());
}

KTEST(kstd_lock, bh_guard)
{
	SpinLock l(KAPI_LOCK_SELFTEST_B);
	EXPECT_FALSE(ktest_bh_disabled());
	{
		SpinBhGuard g(l);
		EXPECT_TRUE(ktest_spin_is_locked(l.raw()));
		EXPECT_TRUE(ktest_bh_disabled());
	}
	EXPECT_FALSE(ktest_bh_disabled());
}

KTEST(kstd_lock, mutex_guard)
{
	Mutex m(KAPI_LOCK_SELFTEST_A);
	EXPECT_FALSE(ktest_mutex_is_locked(m.raw()));
	{
		MutexGuard g(m);
		EXPECT_TRUE(ktest_mutex_is_locked(m.raw()));
	}
	EXPECT_FALSE(ktest_mutex_is_locked(m.raw()));
}

// Two roles nest without lockdep's "possible recursive locking" (which the VM run would
// catch in the log): proof that each role is its own lock class. Where lockdep is on, the
// class keys and names are compared directly as well.
KTEST(kstd_lock, roles_are_distinct_classes)
{
	SpinLock a(KAPI_LOCK_SELFTEST_A), a2(KAPI_LOCK_SELFTEST_A), b(KAPI_LOCK_SELFTEST_B);
	{
		SpinGuard ga(a);
		SpinGuard gb(b);
		EXPECT_TRUE(ktest_spin_is_locked(a.raw()));
		EXPECT_TRUE(ktest_spin_is_locked(b.raw()));
	}
	const char *na = nullptr, *na2 = nullptr, *nb = nullptr;
	const void *ka = ktest_spin_class(a.raw(), &na);
	const void *ka2 = ktest_spin_class(a2.raw(), &na2);
	const void *kb = ktest_spin_class(b.raw(), &nb);
	if (!ka)
		KTEST_SKIP("no lockdep classes here (host, or a kernel without lockdep)");
	EXPECT_NE(ka, kb);
	EXPECT_EQ(ka, ka2); // one class per role, not per lock
	EXPECT_STREQ(na, "ib_ipoib_cm:selftest_a");
	EXPECT_STREQ(nb, "ib_ipoib_cm:selftest_b");
	Mutex m(KAPI_LOCK_SELFTEST_B);
	const char *nm = nullptr;
	EXPECT_EQ(ktest_mutex_class(m.raw(), &nm), kb);
	EXPECT_STREQ(nm, "ib_ipoib_cm:selftest_b");
}

KTEST_SUITE(kstd_lock, KTEST_CASE(kstd_lock, spin_guard), KTEST_CASE(kstd_lock, irqsave_guard_restores),
	    KTEST_CASE(kstd_lock, nested_irqsave_restores_in_order),
	    KTEST_CASE(kstd_lock, bh_guard), KTEST_CASE(kstd_lock, mutex_guard),
	    KTEST_CASE(kstd_lock, roles_are_distinct_classes));

} // namespace ktest_kstd
