// SPDX-License-Identifier: GPL-2.0
// ipoib_ah.h - the address handle owner (a UD destination: a path's or a group's).
// Owner: shared (counted). Who holds a reference: the Path or McGroup it was made for, and
// every posted send to it (TxSlot) until that send completed. The last put hands it to its
// interface's reaper, which destroys it in process context (rdma_destroy_ah may sleep).
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

private:
	Interface &owner_;
	kapi_ah *ah_;
	kstd::RefCount ref_{1};
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
	// Process context: destroys and frees every AH added so far.
	void reap()
	{
		for (;;) {
			Ah *ah;
			{
				kstd::SpinIrqSaveGuard g(lock_);
				ah = dead_.pop_front();
			}
			if (!ah)
				return;
			ah->destroy();
			delete ah;
		}
	}

private:
	kstd::SpinLock lock_;
	kstd::List<Ah> dead_;
};

} // namespace ipoib
