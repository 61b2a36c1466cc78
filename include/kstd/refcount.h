// SPDX-License-Identifier: GPL-2.0
// kstd/refcount.h - kref-like counter on compiler atomics (x86 lock xadd): release
// ordering on put, acquire before the final free, saturation instead of wrap-around
// (refcount_t semantics, reported through the shim's WARN).
#pragma once

#include "kstd/base.h"

namespace kstd {

class RefCount : NonCopyable {
	static constexpr u32 kSaturated = 0xc0000000u;

public:
	constexpr explicit RefCount(u32 initial = 1) : n_(initial) {}

	void get()
	{
		u32 old = __atomic_fetch_add(&n_, 1, __ATOMIC_RELAXED);
		if (__builtin_expect(old == 0 || old >= kSaturated, 0))
			saturate("refcount: get on zero or saturated");
	}

	// True when the object may be tryget'ed, i.e. it is not already dying.
	[[nodiscard]] bool try_get()
	{
		u32 old = __atomic_load_n(&n_, __ATOMIC_RELAXED);
		do {
			if (old == 0)
				return false;
			if (old >= kSaturated)
				return true;
		} while (!__atomic_compare_exchange_n(&n_, &old, old + 1, true, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
		return true;
	}

	// True when this was the last reference: the caller frees.
	[[nodiscard]] bool put()
	{
		u32 old = __atomic_fetch_sub(&n_, 1, __ATOMIC_RELEASE);
		if (old == 1) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			return true;
		}
		if (__builtin_expect(old == 0 || old > kSaturated, 0))
			saturate("refcount: put underflow or saturated");
		return false;
	}

	u32 read() const { return __atomic_load_n(&n_, __ATOMIC_RELAXED); }

private:
	void saturate(const char *what)
	{
		__atomic_store_n(&n_, kSaturated, __ATOMIC_RELAXED);
		kapi_warn(__FILE__, __LINE__, what);
	}

	u32 n_;
};

// A counted reference to T, which provides get() and put() (put frees on the last one).
template <typename T> class Ref {
public:
	constexpr Ref() = default;
	// Adopts a reference the caller already holds.
	static Ref adopt(T *p) { return Ref(p); }
	static Ref acquire(T *p)
	{
		if (p)
			p->get();
		return Ref(p);
	}
	Ref(Ref &&o) : p_(exchange(o.p_, static_cast<T *>(nullptr))) {}
	Ref &operator=(Ref &&o)
	{
		if (this != &o) {
			reset();
			p_ = exchange(o.p_, static_cast<T *>(nullptr));
		}
		return *this;
	}
	Ref(const Ref &) = delete;
	Ref &operator=(const Ref &) = delete;
	~Ref() { reset(); }

	void reset()
	{
		if (T *p = exchange(p_, static_cast<T *>(nullptr)))
			p->put();
	}
	T *get() const { return p_; }
	T *operator->() const { return p_; }
	explicit operator bool() const { return p_ != nullptr; }

private:
	explicit Ref(T *p) : p_(p) {}
	T *p_ = nullptr;
};

} // namespace kstd
