// SPDX-License-Identifier: GPL-2.0
// ipoib_ah.h - the address handle owner (a UD destination: a path's or a group's).
// Owner: shared (counted). Who holds a reference: the Path or McGroup it was made for.
// Sends take none (no atomic per packet): xmit uses the AH while holding the netif tx
// lock, and records in it the send-ring sequence of the last send (note_send). The last
// put hands it to its interface's reaper, which destroys it (process context:
// rdma_destroy_ah may sleep) only once (1) it has taken the tx lock after the put, so no
// xmit is still between reading the pointer and posting, and (2) the ring's completions
// have passed the last send. The in-tree driver's last-send rule, with the same reason.
#pragma once

#include "kstd/list.h"
#include "kstd/lock.h"
#include "kstd/refcount.h"

namespace ipoib {

class Interface;

class Ah : public kstd::ListLink<>, kstd::NonCopyable {
public:
	Ah(Interface &owner, kapi_ah *ah) : owner_(owner), ah_(ah) {}
	~Ah() { KSTD_WARN_ON(ah_ != nullptr); }
	void get() { ref_.get(); }
	void put();
	kapi_ah *raw() const { return ah_; }
	void destroy();	// process context, from the reaper
	// xmit (tx lock held): seq is the send ring's sequence number of this send.
	void note_send(kstd::u32 seq)
	{
		__atomic_store_n(&last_send_, seq, __ATOMIC_RELAXED);
		__atomic_store_n(&used_, true, __ATOMIC_RELEASE);
	}
	// Reaper: were all sends with it completed? completed (tail) and head: the ring's
	// free-running completed and posted counts. Its last send is in flight only if it lies
	// in [tail, head): an unsigned distance from the tail, so a send any number of
	// sequence numbers behind (wrapped past 2^31 too) is idle, and so is a last send whose
	// post failed (its number is head, which no completion will ever pass).
	bool idle(kstd::u32 completed, kstd::u32 head) const
	{
		if (!__atomic_load_n(&used_, __ATOMIC_ACQUIRE))
			return true;
		const kstd::u32 last = __atomic_load_n(&last_send_, __ATOMIC_RELAXED);
		return kstd::u32(last - completed) >= kstd::u32(head - completed);
	}

private:
	Interface &owner_;
	kapi_ah *ah_;
	kstd::RefCount ref_{1};
	kstd::u32 last_send_ = 0;
	bool used_ = false;
};
using AhRef = kstd::Ref<Ah>;

// The AHs whose last reference is gone, until the interface's work destroys them
// (rdma_destroy_ah may sleep; the last put can come from NAPI or an RCU callback).
// Owner: Interface. Its lock is innermost: a put is safe under any other lock.
class AhReaper : kstd::NonCopyable {
public:
	AhReaper() : lock_(KAPI_LOCK_IF_AH_REAPER) {}
	~AhReaper() { KSTD_WARN_ON(!dead_.empty()); }
	void add(Ah &ah)
	{
		kstd::SpinIrqSaveGuard g(lock_);
		dead_.push_back(ah);
	}
	// Process context. Takes the AHs listed now, then runs barrier() (the tx barrier: any
	// xmit that read one of them before its last put has posted by then), then destroys and
	// frees those Ah::idle(progress()) calls idle; the others go back to the list. Returns
	// how many wait for more completions.
	struct Progress {
		kstd::u32 completed;	// the send ring's tail
		kstd::u32 head;		// and head (posted so far)
	};
	template <typename Barrier, typename GetProgress> kstd::u32 reap(Barrier &&barrier, GetProgress &&progress)
	{
		kstd::List<Ah> all, wait;
		{
			kstd::SpinIrqSaveGuard g(lock_);
			while (Ah *ah = dead_.pop_front())
				all.push_back(*ah);
		}
		if (all.empty())
			return 0;
		barrier();
		const Progress p = progress();
		kstd::u32 left = 0;
		while (Ah *ah = all.pop_front()) {
			if (ah->idle(p.completed, p.head)) {
				ah->destroy();
				delete ah;
			} else {
				wait.push_back(*ah);
				left++;
			}
		}
		kstd::SpinIrqSaveGuard g(lock_);
		while (Ah *ah = wait.pop_front())
			dead_.push_front(*ah);
		return left;
	}
	bool empty()
	{
		kstd::SpinIrqSaveGuard g(lock_);
		return dead_.empty();
	}

private:
	kstd::SpinLock lock_;
	kstd::List<Ah> dead_;
};

} // namespace ipoib
