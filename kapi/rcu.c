// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: RCU, a delayed work item and the ARP table's GC parameters, for the neighbour
 * table (include/kapi_neigh.h). One kernel call per function; no policy.
 */
#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/arp.h>
#include <net/neighbour.h>
#include "kapi.h"

/* The storage behind struct kapi_rcu_head: the kernel's head and the core's callback, so
 * no function pointer is ever cast to another type. */
struct kapi_rcu_box {
	struct rcu_head rcu;
	kapi_rcu_fn fn;
};
static_assert(KAPI_SIZEOF_RCU_HEAD == sizeof(struct kapi_rcu_box));
static_assert(KAPI_ALIGNOF_RCU_HEAD == __alignof__(struct kapi_rcu_box));

void kapi_rcu_read_lock(void)
{
	rcu_read_lock();
}

void kapi_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

static void kapi_rcu_run(struct rcu_head *h)
{
	struct kapi_rcu_box *b = container_of(h, struct kapi_rcu_box, rcu);

	b->fn((struct kapi_rcu_head *)b);
}

void kapi_call_rcu(struct kapi_rcu_head *head, kapi_rcu_fn fn)
{
	struct kapi_rcu_box *b = (struct kapi_rcu_box *)head;

	b->fn = fn;
	call_rcu(&b->rcu, kapi_rcu_run);
}

void kapi_rcu_barrier(void)
{
	rcu_barrier();
}

struct kapi_dwork {
	struct delayed_work work;
	void (*fn)(struct kapi_ctx *ctx);
	struct kapi_ctx *ctx;
};

static void kapi_dwork_run(struct work_struct *w)
{
	struct kapi_dwork *d = container_of(to_delayed_work(w), struct kapi_dwork, work);

	d->fn(d->ctx);
}

struct kapi_dwork *kapi_dwork_create(void (*fn)(struct kapi_ctx *ctx), struct kapi_ctx *ctx)
{
	struct kapi_dwork *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return NULL;
	INIT_DELAYED_WORK(&d->work, kapi_dwork_run);
	d->fn = fn;
	d->ctx = ctx;
	return d;
}

void kapi_dwork_schedule(struct kapi_dwork *w, unsigned int delay_ms)
{
	mod_delayed_work(system_wq, &w->work, msecs_to_jiffies(delay_ms));
}

void kapi_dwork_cancel(struct kapi_dwork *w)
{
	cancel_delayed_work_sync(&w->work);
}

void kapi_dwork_free(struct kapi_dwork *w)
{
	kfree(w);
}

kapi_u64 kapi_arp_gc_interval_ms(void)
{
	return jiffies_to_msecs(READ_ONCE(arp_tbl.gc_interval));
}

int kapi_arp_gc_thresh3(void)
{
	return READ_ONCE(arp_tbl.gc_thresh3);
}
