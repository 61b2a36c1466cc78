/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_lock.h - the shim file kapi/lock.c: spinlocks and mutexes embedded in C++ objects.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_LOCK_H
#define KAPI_LOCK_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ---- locks ----
 * C++ embeds the kernel's lock storage (sizes generated), the shim initialises it. Each
 * lock *role* gets its own static lock_class_key in the shim so lockdep sees one class per
 * role rather than one class for every lock initialised at the same shim call site.
 * Add a role here and its name in kapi/lock.c (a static_assert keeps the table complete).
 */
enum kapi_lock_role {
	KAPI_LOCK_DRIVER_DEVICES,	/* mutex: Driver's list of bound IB devices */
	KAPI_LOCK_DEVICE_PORTS,		/* spinlock: a Device's list of ports (lookups from atomic context) */
	KAPI_LOCK_IF_PATHS,		/* spinlock (irqsave): an interface's path table */
	KAPI_LOCK_IF_MCAST,		/* spinlock (irqsave): an interface's multicast group table */
	KAPI_LOCK_PORT_CHILDREN,	/* mutex: a Port's P_Key child interfaces (taken under rtnl) */
	KAPI_LOCK_IF_NEIGH,		/* spinlock (irqsave): an interface's neighbour hash (writers; readers use RCU) */
	KAPI_LOCK_IF_AH_REAPER,		/* spinlock (irqsave): an interface's dead AHs (innermost, any context) */
	KAPI_LOCK_IF_CM,		/* spinlock (irqsave): an interface's connected-mode peers and connections */
	KAPI_LOCK_CM_CONN,		/* spinlock (irqsave): one connection's state machine and step FIFO (inside IF_CM) */
	KAPI_LOCK_IF_ICMP,		/* spinlock (irqsave): packets waiting for their ICMP (xmit -> work) */
	KAPI_LOCK_IF_CQ,		/* mutex: an interface's receive CQ resize (CM work, process context) */
	KAPI_LOCK_IF_NAMES,		/* mutex: an interface's debugfs directory and log prefix (taken under rtnl) */
	KAPI_LOCK_SELFTEST_A,		/* reserved for tests (kunit/) */
	KAPI_LOCK_SELFTEST_B,
	KAPI_LOCK_ROLE_COUNT
};
struct kapi_spinlock;	/* storage: KAPI_SIZEOF_SPINLOCK bytes, KAPI_ALIGNOF_SPINLOCK aligned */
struct kapi_mutex;	/* storage: KAPI_SIZEOF_MUTEX bytes, KAPI_ALIGNOF_MUTEX aligned */

void kapi_spin_init(struct kapi_spinlock *l, enum kapi_lock_role role) KAPI_NOEXCEPT;
void kapi_spin_lock(struct kapi_spinlock *l) KAPI_NOEXCEPT;
void kapi_spin_unlock(struct kapi_spinlock *l) KAPI_NOEXCEPT;
void kapi_spin_lock_bh(struct kapi_spinlock *l) KAPI_NOEXCEPT;
void kapi_spin_unlock_bh(struct kapi_spinlock *l) KAPI_NOEXCEPT;
unsigned long kapi_spin_lock_irqsave(struct kapi_spinlock *l) KAPI_NOEXCEPT;
void kapi_spin_unlock_irqrestore(struct kapi_spinlock *l, unsigned long flags) KAPI_NOEXCEPT;

void kapi_mutex_init(struct kapi_mutex *m, enum kapi_lock_role role) KAPI_NOEXCEPT;
void kapi_mutex_destroy(struct kapi_mutex *m) KAPI_NOEXCEPT;
void kapi_mutex_lock(struct kapi_mutex *m) KAPI_NOEXCEPT;
void kapi_mutex_unlock(struct kapi_mutex *m) KAPI_NOEXCEPT;

/* Waiting for a counter to reach zero (wait_var_event_timeout / wake_up_var): the waiter
 * sleeps until *v == 0 or timeout_ms passed (0, or -ETIMEDOUT); whoever brings *v to zero
 * calls kapi_wake_var(v). Sleeps. */
int kapi_wait_var_zero(int *v, unsigned int timeout_ms) KAPI_NOEXCEPT;
void kapi_wake_var(int *v) KAPI_NOEXCEPT;

/* A short section that nothing on this CPU may interrupt (local_irq_save/restore): the
 * writer of a word set that readers in softirq or hardirq context spin on. */
unsigned long kapi_local_irq_save(void) KAPI_NOEXCEPT;
void kapi_local_irq_restore(unsigned long flags) KAPI_NOEXCEPT;
/* cpu_relax(): the body of a spin-wait loop, on every architecture. */
void kapi_cpu_relax(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_LOCK_H */
