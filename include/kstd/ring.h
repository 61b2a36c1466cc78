// SPDX-License-Identifier: GPL-2.0
// kstd/ring.h - fixed-capacity FIFO with free-running indices (capacity a power of two,
// so wrap-around is a mask and full/empty need no extra flag). No locking: the owner
// serialises producers and consumers. Pure: host-compilable.
#pragma once

#include "kstd/types.h"

namespace kstd {

template <typename T, u32 N> class Ring {
	static_assert(N > 0 && (N & (N - 1)) == 0, "Ring capacity must be a power of two");

public:
	constexpr Ring() = default;

	static constexpr u32 capacity() { return N; }
	u32 size() const { return head_ - tail_; }
	// size() for a reader without the owner's lock while a holder may pop (relaxed loads:
	// no torn or compiler-cached read, a data race KCSAN accepts; the value may be stale).
	u32 size_relaxed() const
	{
		return __atomic_load_n(&head_, __ATOMIC_RELAXED) - __atomic_load_n(&tail_, __ATOMIC_RELAXED);
	}
	bool empty() const { return head_ == tail_; }
	bool full() const { return size() == N; }

	// False when full (the value is not consumed).
	[[nodiscard]] bool push(T &&v)
	{
		if (full())
			return false;
		slots_[head_++ & (N - 1)] = move(v);
		return true;
	}
	[[nodiscard]] bool push(const T &v)
	{
		if (full())
			return false;
		slots_[head_++ & (N - 1)] = v;
		return true;
	}
	// Oldest element, or nullptr when empty.
	T *front() { return empty() ? nullptr : &slots_[tail_ & (N - 1)]; }
	// False when empty.
	[[nodiscard]] bool pop(T &out)
	{
		if (empty())
			return false;
		out = move(slots_[tail_++ & (N - 1)]);
		return true;
	}

private:
	T slots_[N]{};
	u32 head_ = 0;
	u32 tail_ = 0;
};

} // namespace kstd
