// SPDX-License-Identifier: GPL-2.0
// ipoib_rings.h - what the send and receive rings share: the completion batch size, the
// slot-array owner, the FIFO of slots waiting for a post, and the counters they update.
#pragma once

#include "kstd/base.h"
#include "kstd/new.h"
#include "kstd/status.h"

namespace ipoib {

using kstd::Gfp;
using kstd::Status;
using kstd::u32;
using kstd::u64;

// Completions polled and receives reposted per boundary crossing (the shim converts at most
// KAPI_WR_BATCH_MAX per call). 16 as the in-tree driver's send-CQ batch.
inline constexpr u32 kPollBatch = 16;
static_assert(kPollBatch <= KAPI_WR_BATCH_MAX);

// Fixed-size array owner (new[] with a GFP, delete[] on destruction or reset()).
template <typename T> class Array : kstd::NonCopyable {
public:
	Array() = default;
	~Array() { delete[] p_; }
	// Frees the elements now (size() 0), for an owner that outlives what it holds.
	void reset()
	{
		delete[] kstd::exchange(p_, static_cast<T *>(nullptr));
		n_ = 0;
	}
	Status alloc(u32 n, Gfp gfp = Gfp::Kernel)
	{
		reset();
		if (!n)
			return Status::Ok;
		p_ = new (gfp) T[n];
		if (!p_)
			return Status::NoMem;
		n_ = n;
		return Status::Ok;
	}
	T &operator[](u32 i) { return p_[i]; }
	const T &operator[](u32 i) const { return p_[i]; }
	u32 size() const { return n_; }

private:
	T *p_ = nullptr;
	u32 n_ = 0;
};

// The slots whose buffer is the ring's and waits to be posted, in order: a FIFO of slot
// indices with room for every slot (a ring queues a slot at most once; a slot is posted,
// queued, or held, never two of these). Shared by the UD and RC receive rings.
class SlotFifo : kstd::NonCopyable {
public:
	Status alloc(u32 n) { return q_.alloc(n); }
	bool push(u32 idx)
	{
		if (n_ >= q_.size())
			return false;
		q_[wrap(head_ + n_++)] = idx;
		return true;
	}
	u32 size() const { return n_; }
	u32 capacity() const { return q_.size(); }
	u32 at(u32 i) const { return q_[wrap(head_ + i)]; }	// i < size()
	void pop(u32 k)						// k <= size()
	{
		head_ = wrap(head_ + k);
		n_ -= k;
	}
	void clear() { head_ = n_ = 0; }
	void reset()	// empty, and the table freed (capacity() 0) until the next alloc()
	{
		clear();
		q_.reset();
	}

private:
	u32 wrap(u32 i) const { return i >= q_.size() ? i - q_.size() : i; }
	Array<u32> q_;
	u32 head_ = 0;
	u32 n_ = 0;
};

// Single-writer counter: one context updates it (NAPI, or xmit under the netif tx lock),
// any context reads it. A relaxed load + store, no locked read-modify-write per packet.
inline void count_local(u64 &c, u64 n = 1)
{
	__atomic_store_n(&c, __atomic_load_n(&c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

} // namespace ipoib
