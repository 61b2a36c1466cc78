// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: the IPoIB net_device's NAPI context and its one work item - enable, disable,
 * schedule, complete; queue, re-arm, cancel the work. The core decides when (netdev.c holds
 * the poll and work callbacks that call it). No policy.
 */
#include <linux/interrupt.h>
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
 * From task context NET_RX must not wait for the next interrupt on this CPU. Completion
 * handlers run in task context with providers that complete from a kworker or a thread
 * (softib's wire worker, siw; 6.12's rxe posts with interrupts off and takes the plain
 * branch below). Debian's 6.1 (6.1.192) and 6.12 ____napi_schedule raise NET_RX with
 * raise_softirq_irqoff, which already wakes ksoftirqd outside interrupt context (kernels
 * before that stable change use __raise_softirq_irqoff, which does not). So on both supported
 * kernels the tasklet below behaves like a plain napi_schedule (as the in-tree driver does); it is kept for kernels whose napi_schedule does not wake ksoftirqd, and replacing
 * it with the plain call is a simplification left to a measured change. Running NET_RX at once there (a
 * local_bh_enable after napi_schedule, R8) polls inline with the one completion that fired
 * it, so nothing batches (docs/datagram.md, "NAPI scheduling from task context": 13x the
 * polls per MB). A tasklet instead: tasklet_schedule raises its softirq with a ksoftirqd wake
 * when not in interrupt context, so the raised NET_RX never waits for a tick, and the poll
 * runs in ksoftirqd (or at the next irq exit) while the provider goes on completing; a kick
 * while one is pending is a test_and_set_bit.
 * Callers also run in hardirq (CQ/SRQ events), softirq (NAPI, the tx watchdog) and possibly
 * with interrupts off, where the raised NET_RX runs at irq exit or the enclosing BH enable.
 */
static void kapi_napi_kick_fn(struct tasklet_struct *t)
{
	struct kapi_netdev_priv *p = from_tasklet(p, t, napi_kick);

	napi_schedule(&p->napi);	/* a disabled NAPI (ndo_stop) ignores it */
}

void kapi_napi_kick_init(struct kapi_netdev_priv *p)
{
	tasklet_setup(&p->napi_kick, kapi_napi_kick_fn);
}

/* After the CQs are gone (nobody kicks): waits for a pending or running kick. */
void kapi_napi_kick_kill(struct kapi_netdev_priv *p)
{
	tasklet_kill(&p->napi_kick);
}

void kapi_napi_schedule(struct kapi_netdev *nd)
{
	struct kapi_netdev_priv *p = nd_priv(to_nd(nd));

	if (in_task() && !irqs_disabled())
		tasklet_schedule(&p->napi_kick);
	else
		napi_schedule(&p->napi);
}

int kapi_napi_complete_done(struct kapi_netdev *nd, int done)
{
	return napi_complete_done(&nd_priv(to_nd(nd))->napi, done);
}

