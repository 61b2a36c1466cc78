// SPDX-License-Identifier: GPL-2.0
// kstd/lock.h - kernel locks embedded in C++ objects (storage sized from the headers) and
// their RAII guards. Every lock is constructed with its role (kapi_lock_role): the shim
// keeps one lockdep class per role, so lockdep checks ordering between roles instead of
// lumping all C++ locks into the single class of one spin_lock_init() call site.
// Guard constructors are [[nodiscard]]: `SpinGuard{l};` would unlock at once.
#pragma once

#include "kstd/base.h"

namespace kstd {

using LockRole = kapi_lock_role;

class SpinLock : NonCopyable {
public:
	explicit SpinLock(LockRole role) { kapi_spin_init(raw(), role); }
	kapi_spinlock *raw() { return reinterpret_cast<kapi_spinlock *>(storage_); }

private:
	alignas(KAPI_ALIGNOF_SPINLOCK) unsigned char storage_[KAPI_SIZEOF_SPINLOCK];
};

class Mutex : NonCopyable {
public:
	explicit Mutex(LockRole role) { kapi_mutex_init(raw(), role); }
	~Mutex() { kapi_mutex_destroy(raw()); }
	kapi_mutex *raw() { return reinterpret_cast<kapi_mutex *>(storage_); }

private:
	alignas(KAPI_ALIGNOF_MUTEX) unsigned char storage_[KAPI_SIZEOF_MUTEX];
};

// One guard template; each policy says how to take and drop one kind of lock.
template <typename Policy> class Guard : NonCopyable {
public:
	using Lock = typename Policy::Lock;
	[[nodiscard]] explicit Guard(Lock &l) : lock_(l), state_(Policy::lock(l)) {}
	~Guard() { Policy::unlock(lock_, state_); }

private:
	Lock &lock_;
	typename Policy::State state_;
};

namespace lock_policy {
struct Spin {
	using Lock = SpinLock;
	using State = bool;
	static State lock(Lock &l) { return kapi_spin_lock(l.raw()), true; }
	static void unlock(Lock &l, State) { kapi_spin_unlock(l.raw()); }
};
struct SpinBh {
	using Lock = SpinLock;
	using State = bool;
	static State lock(Lock &l) { return kapi_spin_lock_bh(l.raw()), true; }
	static void unlock(Lock &l, State) { kapi_spin_unlock_bh(l.raw()); }
};
struct SpinIrqSave {
	using Lock = SpinLock;
	using State = unsigned long;
	static State lock(Lock &l) { return kapi_spin_lock_irqsave(l.raw()); }
	static void unlock(Lock &l, State flags) { kapi_spin_unlock_irqrestore(l.raw(), flags); }
};
struct MutexLock {
	using Lock = Mutex;
	using State = bool;
	static State lock(Lock &l) { return kapi_mutex_lock(l.raw()), true; }
	static void unlock(Lock &l, State) { kapi_mutex_unlock(l.raw()); }
};
} // namespace lock_policy

using SpinGuard = Guard<lock_policy::Spin>;
using SpinBhGuard = Guard<lock_policy::SpinBh>;
using SpinIrqSaveGuard = Guard<lock_policy::SpinIrqSave>;
using MutexGuard = Guard<lock_policy::MutexLock>;

} // namespace kstd
