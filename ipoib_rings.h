// SPDX-License-Identifier: GPL-2.0
// ipoib_rings.h - what the send and receive rings share: the completion batch size, the
// slot-array owner, and the counters they update.
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

// Fixed-size array owner (new[] with a GFP, delete[] on destruction).
template <typename T> class Array : kstd::NonCopyable {
public:
	Array() = default;
	~Array() { delete[] p_; }
	Status alloc(u32 n)
	{
		p_ = new (Gfp::Kernel) T[n];
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

// Single-writer counter: one context updates it (NAPI, or xmit under the netif tx lock),
// any context reads it. A relaxed load + store, no locked read-modify-write per packet.
inline void count_local(u64 &c, u64 n = 1)
{
	__atomic_store_n(&c, __atomic_load_n(&c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

} // namespace ipoib
