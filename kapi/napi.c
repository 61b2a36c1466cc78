// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: the IPoIB net_device's NAPI context and its one work item - enable, disable,
 * schedule, complete; queue, re-arm, cancel the work. The core decides when (netdev.c holds
 * the poll and work callbacks that call it). No policy.
 */
#include <linux/bottom_half.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include "kapi.h"
#include "compat.h"
#include "netdev_priv.h"

int kapi_netdev_work_queue(struct kapi_netdev *nd, unsigned int delay_ms)
{
	return queue_delayed_work(system_wq, &nd_priv(to_nd(nd))->work, msecs_to_jiffies(delay_ms));
}

void kapi_netdev_work_mod(struct kapi_netdev *nd, unsigned int delay_ms)
{
	mod_delayed_work(system_wq, &nd_priv(to_nd(nd))->work, msecs_to_jiffies(delay_ms));
}

int kapi_netdev_work_due_in(struct kapi_netdev *nd, kapi_u64 *ms)
{
	struct delayed_work *w = &nd_priv(to_nd(nd))->work;
	unsigned long expires = READ_ONCE(w->timer.expires), now = jiffies;

	if (!timer_pending(&w->timer))
		return 0;
	*ms = time_after(expires, now) ? jiffies_to_msecs(expires - now) : 0;
	return 1;
}

void kapi_netdev_cancel_work(struct kapi_netdev *nd)
{
	cancel_delayed_work_sync(&nd_priv(to_nd(nd))->work);
}

void kapi_napi_enable(struct kapi_netdev *nd)
{
	napi_enable(&nd_priv(to_nd(nd))->napi);
}

void kapi_napi_disable(struct kapi_netdev *nd)
{
	napi_disable(&nd_priv(to_nd(nd))->napi);
}

/*
 * napi_schedule raises NET_RX with __raise_softirq_irqoff, which does not wake ksoftirqd: from
 * process context the poll would wait for the next interrupt or softirq on this CPU (and an
 * idle CPU reports "NOHZ tick-stop error: local softirq work is pending"). With BH disabled
 * around it, local_bh_enable runs the pending softirq at once. Callers also run in hardirq
 * (CQ/SRQ events), softirq (NAPI, the tx watchdog) and possibly with interrupts off, where
 * local_bh_enable is not allowed and the softirq runs at irq exit or the enclosing BH enable.
 */
void kapi_napi_schedule(struct kapi_netdev *nd)
{
	struct napi_struct *n = &nd_priv(to_nd(nd))->napi;

	if (in_task() && !irqs_disabled()) {
		local_bh_disable();
		napi_schedule(n);
		local_bh_enable();
	} else {
		napi_schedule(n);
	}
}

int kapi_napi_complete_done(struct kapi_netdev *nd, int done)
{
	return napi_complete_done(&nd_priv(to_nd(nd))->napi, done);
}

