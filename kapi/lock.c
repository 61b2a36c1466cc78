// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: spinlocks and mutexes living in C++ objects, and waiting for a counter to drain. One static lock_class_key per
 * kapi_lock_role: spin_lock_init()/mutex_init() would otherwise give every lock created
 * here the single class of this call site, and lockdep could not tell roles apart.
 */
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include <linux/wait_bit.h>
#include <linux/jiffies.h>
#include <linux/irqflags.h>
#include <asm/processor.h>
#include "kapi.h"

static struct lock_class_key kapi_lock_keys[KAPI_LOCK_ROLE_COUNT];

static const char *const kapi_lock_names[] = {
	[KAPI_LOCK_DRIVER_DEVICES] = "ib_ipoib_cm:driver_devices",
	[KAPI_LOCK_DEVICE_PORTS] = "ib_ipoib_cm:device_ports",
	[KAPI_LOCK_IF_PATHS] = "ib_ipoib_cm:if_paths",
	[KAPI_LOCK_IF_MCAST] = "ib_ipoib_cm:if_mcast",
	[KAPI_LOCK_PORT_CHILDREN] = "ib_ipoib_cm:port_children",
	[KAPI_LOCK_IF_NEIGH] = "ib_ipoib_cm:if_neigh",
	[KAPI_LOCK_IF_AH_REAPER] = "ib_ipoib_cm:if_ah_reaper",
	[KAPI_LOCK_IF_CM] = "ib_ipoib_cm:if_cm",
	[KAPI_LOCK_CM_CONN] = "ib_ipoib_cm:cm_conn",
	[KAPI_LOCK_IF_ICMP] = "ib_ipoib_cm:if_icmp",
	[KAPI_LOCK_IF_CQ] = "ib_ipoib_cm:if_cq",
	[KAPI_LOCK_IF_NAMES] = "ib_ipoib_cm:if_names",
	[KAPI_LOCK_SELFTEST_A] = "ib_ipoib_cm:selftest_a",
	[KAPI_LOCK_SELFTEST_B] = "ib_ipoib_cm:selftest_b",
};
static_assert(ARRAY_SIZE(kapi_lock_names) == KAPI_LOCK_ROLE_COUNT, "name every lock role");

static spinlock_t *to_spin(struct kapi_spinlock *l)
{
	return (spinlock_t *)l;
}

static struct mutex *to_mutex(struct kapi_mutex *m)
{
	return (struct mutex *)m;
}

void kapi_spin_init(struct kapi_spinlock *l, enum kapi_lock_role role)
{
	spin_lock_init(to_spin(l));
	lockdep_set_class_and_name(to_spin(l), &kapi_lock_keys[role], kapi_lock_names[role]);
}

void kapi_spin_lock(struct kapi_spinlock *l)
{
	spin_lock(to_spin(l));
}

void kapi_spin_unlock(struct kapi_spinlock *l)
{
	spin_unlock(to_spin(l));
}

void kapi_spin_lock_bh(struct kapi_spinlock *l)
{
	spin_lock_bh(to_spin(l));
}

void kapi_spin_unlock_bh(struct kapi_spinlock *l)
{
	spin_unlock_bh(to_spin(l));
}

unsigned long kapi_spin_lock_irqsave(struct kapi_spinlock *l)
{
	unsigned long flags;

	spin_lock_irqsave(to_spin(l), flags);
	return flags;
}

void kapi_spin_unlock_irqrestore(struct kapi_spinlock *l, unsigned long flags)
{
	spin_unlock_irqrestore(to_spin(l), flags);
}

void kapi_mutex_init(struct kapi_mutex *m, enum kapi_lock_role role)
{
	mutex_init(to_mutex(m));
	lockdep_set_class_and_name(to_mutex(m), &kapi_lock_keys[role], kapi_lock_names[role]);
}

void kapi_mutex_destroy(struct kapi_mutex *m)
{
	mutex_destroy(to_mutex(m));
}

void kapi_mutex_lock(struct kapi_mutex *m)
{
	mutex_lock(to_mutex(m));
}

void kapi_mutex_unlock(struct kapi_mutex *m)
{
	mutex_unlock(to_mutex(m));
}

int kapi_wait_var_zero(int *v, unsigned int timeout_ms)
{
	return wait_var_event_timeout(v, READ_ONCE(*v) == 0, msecs_to_jiffies(timeout_ms)) ? 0 : -ETIMEDOUT;
}

/*
 * The caller's decrement must be ordered before wake_up_var()'s waitqueue_active() check,
 * or a waiter that has just queued itself and seen the old value is never woken
 * (wake_up_var / wake_up_bit: "needs smp_mb__after_atomic()" or a full barrier). The core's
 * decrement is a plain C++ atomic, so the full barrier is here.
 */
void kapi_wake_var(int *v)
{
	smp_mb();
	wake_up_var(v);
}

unsigned long kapi_local_irq_save(void)
{
	unsigned long flags;

	local_irq_save(flags);
	return flags;
}

void kapi_local_irq_restore(unsigned long flags)
{
	local_irq_restore(flags);
}

void kapi_cpu_relax(void)
{
	cpu_relax();
}
