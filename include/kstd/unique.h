// SPDX-License-Identifier: GPL-2.0
// kstd/unique.h - single owners. Handle<Traits> owns any kernel resource whose release is
// Traits::release(p); Unique<T> is the Handle for objects from `new (Gfp)`.
#pragma once

#include "kstd/new.h"
#include "kstd/result.h"

namespace kstd {

template <typename Traits> class Handle {
public:
	using Pointer = typename Traits::Pointer;

	constexpr Handle() = default;
	explicit Handle(Pointer p) : p_(p) {}
	Handle(Handle &&o) : p_(exchange(o.p_, Pointer{})) {}
	Handle &operator=(Handle &&o)
	{
		if (this != &o)
			reset(exchange(o.p_, Pointer{}));
		return *this;
	}
	Handle(const Handle &) = delete;
	Handle &operator=(const Handle &) = delete;
	~Handle() { reset(); }

	Pointer get() const { return p_; }
	explicit operator bool() const { return p_ != Pointer{}; }
	// Give up ownership (e.g. to a kernel structure that will call back to free it).
	[[nodiscard]] Pointer release() { return exchange(p_, Pointer{}); }
	void reset(Pointer p = Pointer{})
	{
		Pointer old = exchange(p_, p);
		if (old != Pointer{})
			Traits::release(old);
	}

private:
	Pointer p_{};
};

template <typename T> struct DeleteTraits {
	using Pointer = T *;
	static void release(T *p) { delete p; }
};

template <typename T> class Unique : public Handle<DeleteTraits<T>> {
	using Base = Handle<DeleteTraits<T>>;

public:
	using Base::Base;
	Unique(Unique &&) = default;
	Unique &operator=(Unique &&) = default;
	T *operator->() const { return this->get(); }
	T &operator*() const { return *this->get(); }
};

// Allocate and construct; the only failure is memory.
template <typename T, typename... Args> Result<Unique<T>> make_unique(Gfp gfp, Args &&...args)
{
	static_assert(alignof(T) <= KAPI_KMALLOC_MINALIGN, "over-aligned type: kmalloc cannot honour it");
	T *p = new (gfp) T(forward<Args>(args)...);
	if (!p)
		return Status::NoMem;
	return Unique<T>(p);
}

} // namespace kstd
