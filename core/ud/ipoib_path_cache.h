// SPDX-License-Identifier: GPL-2.0
// ipoib_path_cache.h - the paths of an interface: one Path per destination GID with its
// PathRecord query state, its AH once resolved (RFC 4391 §9.1.2) and a bounded queue of
// packets waiting for it, and the lock that guards them.
//
// Owner: Interface (a member); the cache holds one reference on each listed Path. Who else
// holds one: every Neigh pointing at it (until its RCU callback), a PathRecord query in
// flight (the SA gets the Path's tagged context; ipoib_core_path_done drops it), and the
// slow xmit path while it starts a query. A Path taken off the list (flush, GC) is marked
// dead first, so a query answering late only drops its reference.
// Lock: KAPI_LOCK_IF_PATHS (irqsave); the neighbour lock nests inside it, never around it.
#pragma once

#include "core/ud/ipoib_mcast_table.h"

namespace ipoib {

// A path; its tagged context is the PathRecord query's (ipoib_core_path_done).
struct Path : Tagged<KAPI_CTX_PATH>, kstd::ListLink<>, kstd::NonCopyable {
	Path(Interface &o) : owner(o) {}
	Interface &owner;
	u8 gid[kGidLen] = {};
	AhRef ah;
	u16 dlid = 0;
	kapi_cm_path *cm_rec = nullptr;	// the resolved record, for connected mode's REQ
	bool querying = false;
	bool dead = false;	// unlinked by a flush or the GC; the query callback only drops its ref
	int query_id = -1;
	void *query = nullptr;
	SkbQueue queue;
	Ah *ah_live = nullptr;	// ah's Ah, published once for xmit's lock-free read
	u64 used_ms = 0;	// last send to this GID (plain store from xmit)
	u32 backoff_ms = 0;	// PathRecord query back-off (ipoib_neigh_policy.h), 0 after a success
	u64 retry_at = 0;	// no new query before this time (ms), 0: none pending
	kstd::RefCount ref{1};	// the table's; a query in flight and every Neigh hold another
	void get() { ref.get(); }
	void put();
	// The AH for a lock-free sender, or nullptr (unresolved, or flushed meanwhile).
	Ah *live_ah() const
	{
		if (__atomic_load_n(&dead, __ATOMIC_ACQUIRE))
			return nullptr;
		return __atomic_load_n(&ah_live, __ATOMIC_ACQUIRE);
	}
	void touch(u64 now_ms)
	{
		if (__atomic_load_n(&used_ms, __ATOMIC_RELAXED) != now_ms)
			__atomic_store_n(&used_ms, now_ms, __ATOMIC_RELAXED);
	}
};

class PathCache : kstd::NonCopyable {
public:
	PathCache() : lock_(KAPI_LOCK_IF_PATHS) {}
	~PathCache() { KSTD_WARN_ON(!paths_.empty()); }

	kstd::SpinLock &lock() { return lock_; }

	// Lock held: the Path for gid, or a new one (nullptr only without memory).
	Path *find(const u8 *gid);
	Path *find_or_add(Interface &owner, const u8 *gid);
	// Lock held: every Path off the list and marked dead (flush).
	void unlink_all(kstd::List<Path> &out);
	// Lock held: the Paths pred(const Path &) selects, off the list and marked dead (GC).
	template <typename Pred> void unlink_if(Pred &&pred, kstd::List<Path> &out)
	{
		kstd::List<Path> keep;
		while (Path *p = paths_.pop_front()) {
			if (pred(static_cast<const Path &>(*p))) {
				__atomic_store_n(&p->dead, true, __ATOMIC_RELEASE);
				out.push_back(*p);
			} else {
				keep.push_back(*p);
			}
		}
		while (Path *p = keep.pop_front())
			paths_.push_back(*p);
	}
	// Lock held (debugfs).
	template <typename F> void for_each(F &&f)
	{
		for (Path &p : paths_)
			f(static_cast<const Path &>(p));
	}

private:
	kstd::SpinLock lock_;
	kstd::List<Path> paths_;
};

} // namespace ipoib
