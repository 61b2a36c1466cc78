// SPDX-License-Identifier: GPL-2.0
// ipoib_neigh.h - the neighbour table: one Neigh per 20-octet IPoIB destination address
// (RFC 4391 §9.1.1: flags | QPN | GID) the interface sends to, in a hash table the xmit
// path reads under RCU without a lock. A Neigh holds a reference on the Path of its GID
// (which holds the AH). Writers (slow path, GC, flush) take the table's spinlock; an
// unlinked Neigh is freed, and its Path reference dropped, after an RCU grace period.
// Decisions (hash, sizing, ageing) are pure logic in ipoib_neigh_policy.h.
#pragma once

#include "core/ud/ipoib_neigh_policy.h"
#include "kstd/lock.h"
#include "kstd/status.h"
#include "kstd/string.h"

namespace ipoib {

using kstd::Status;
struct Path;

struct Neigh : kstd::NonCopyable {
	Neigh(const HwAddr &a, Path *p, u64 now_ms) : addr(a), path(p), used_ms(now_ms), created_ms(now_ms) {}

	// First member: the RCU callback gets this address back (kapi_call_rcu).
	alignas(KAPI_ALIGNOF_RCU_HEAD) unsigned char rcu[KAPI_SIZEOF_RCU_HEAD];
	Neigh *next = nullptr;		// hash chain; written under the lock, read under RCU
	Neigh *retire_next = nullptr;	// the writer's private list of unlinked entries
	HwAddr addr;
	Path *path;			// counted reference, dropped after the grace period
	u64 used_ms;			// last xmit (plain store from xmit, read by the GC)
	u64 created_ms;
	// Connected mode (RFC 4755) will hang the per-neighbour RC connection state here:
	// the peer's flags octet says whether it accepts connections, and GC must keep a
	// neighbour whose connection is still active.

	void touch(u64 now_ms)
	{
		// Store only when the jiffy moved: a hot neighbour's cache line stays clean.
		if (__atomic_load_n(&used_ms, __ATOMIC_RELAXED) != now_ms)
			__atomic_store_n(&used_ms, now_ms, __ATOMIC_RELAXED);
	}
	u64 last_used() const { return __atomic_load_n(&used_ms, __ATOMIC_RELAXED); }
};
static_assert(__builtin_offsetof(Neigh, rcu) == 0, "kapi_call_rcu hands the rcu_head address back as the Neigh");

class NeighTable : kstd::NonCopyable {
public:
	NeighTable() : lock_(KAPI_LOCK_IF_NEIGH) {}
	~NeighTable();

	Status init(u32 buckets);	// process context; buckets a power of two
	kstd::SpinLock &lock() { return lock_; }
	u32 size() const { return __atomic_load_n(&count_, __ATOMIC_RELAXED); }

	// Reader: inside kapi_rcu_read_lock() (or with the lock held).
	Neigh *lookup(const HwAddr &a) const;
	// Writers, lock held:
	void insert(Neigh &n);
	void unlink(Neigh &n);
	// Unlinks every entry pred(n) selects onto a list (through retire_next); returns its head.
	template <typename Pred> Neigh *unlink_if(Pred pred);
	// Every linked entry (lock held; for debugfs).
	template <typename F> void for_each(F f) const;

	// Frees each entry of a retired list after a grace period (any context); returns how
	// many there were.
	static u32 retire(Neigh *list);

private:
	Neigh *load(Neigh *const *slot) const { return __atomic_load_n(slot, __ATOMIC_ACQUIRE); }
	static void publish(Neigh **slot, Neigh *n) { __atomic_store_n(slot, n, __ATOMIC_RELEASE); }

	kstd::SpinLock lock_;
	Neigh **buckets_ = nullptr;
	u32 mask_ = 0;
	u32 count_ = 0;
};

template <typename Pred> Neigh *NeighTable::unlink_if(Pred pred)
{
	Neigh *out = nullptr;
	for (u32 i = 0; buckets_ && i <= mask_; i++) {
		Neigh **slot = &buckets_[i];
		for (Neigh *n = *slot; n; n = *slot) {
			if (!pred(*n)) {
				slot = &n->next;
				continue;
			}
			// A reader on n still follows n->next: it is left as it is.
			publish(slot, n->next);
			__atomic_store_n(&count_, count_ - 1, __ATOMIC_RELAXED);
			n->retire_next = out;
			out = n;
		}
	}
	return out;
}

template <typename F> void NeighTable::for_each(F f) const
{
	for (u32 i = 0; buckets_ && i <= mask_; i++)
		for (Neigh *n = buckets_[i]; n; n = n->next)
			f(*n);
}

} // namespace ipoib
