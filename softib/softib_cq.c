// SPDX-License-Identifier: GPL-2.0
/*
 * softib: completion queues.  A ring of ib_wc under the fabric lock.  Arming
 * follows IBA 11.4.2.2: NEXT_COMP fires on any new CQE, SOLICITED only on a
 * solicited one; the handler is queued to the wire worker, never called
 * under a provider lock (§3.8).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <rdma/uverbs_ioctl.h>
#include "softib.h"

/* lock held */
void softib_cq_push(struct softib_cq *cq, const struct ib_wc *wc, bool solicited)
{
	if (cq->count == cq->size) {
		/* IBA 11.4.2.1: overflow is a CQ error; count it and tell the consumer */
		struct softib_qp *qp = to_sqp(wc->qp);
		struct ib_event ev = {
			.device = cq->ibcq.device,
			.element.cq = &cq->ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		softib_count(&qp->sdev->ports[qp->port ? qp->port : 1],
			     SOFTIB_CNT_CQ_OVERFLOW, 1);
		if (!cq->overflow) {
			cq->overflow = true;
			pr_warn_ratelimited("softib: CQ %p overflow (%u entries)\n", cq, cq->size);
			softib_queue_event(&ev);
		}
		return;
	}
	cq->ring[(cq->head + cq->count) % cq->size] = *wc;
	cq->count++;
	if (cq->armed == IB_CQ_NEXT_COMP || (cq->armed == IB_CQ_SOLICITED && solicited)) {
		cq->armed = 0;
		softib_queue_cq_notify(cq);
	}
}

int softib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct ib_udata *udata)
{
	struct softib_cq *cq = to_scq(ibcq);

	if (udata)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SOFTIB_MAX_CQE)
		return -EINVAL;
	if (attr->comp_vector >= 1)
		return -EINVAL;
	cq->size = attr->cqe;
	cq->ring = kvcalloc(cq->size, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;
	INIT_LIST_HEAD(&cq->notify_node);
	ibcq->cqe = attr->cqe;
	return 0;
}

/*
 * ib_resize_cq (IBA 11.2.6: Resize CQ): a new ring of cqe entries, the queued CQEs moved
 * to it in order under the fabric lock (push and poll take it too, so no CQE is lost or
 * reordered). Fewer entries than are queued is refused (-EINVAL), as IBA lets a CI do.
 */
int softib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct softib_cq *cq = to_scq(ibcq);
	struct ib_wc *ring, *old;
	unsigned long flags;
	u32 i;

	if (udata)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > SOFTIB_MAX_CQE)
		return -EINVAL;
	ring = kvcalloc(cqe, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	spin_lock_irqsave(&softib_lock, flags);
	if (cq->count > (u32)cqe) {
		spin_unlock_irqrestore(&softib_lock, flags);
		kvfree(ring);
		return -EINVAL;
	}
	for (i = 0; i < cq->count; i++)
		ring[i] = cq->ring[(cq->head + i) % cq->size];
	old = cq->ring;
	cq->ring = ring;
	cq->size = cqe;
	cq->head = 0;
	ibcq->cqe = cqe;
	spin_unlock_irqrestore(&softib_lock, flags);
	kvfree(old);
	return 0;
}

/* The 6.11+ create_cq (softib.h): kernel consumers pass no bundle; user verbs carry udata. */
int softib_create_cq_attrs(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	return softib_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}

int softib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct softib_cq *cq = to_scq(ibcq);
	unsigned long flags;

	spin_lock_irqsave(&softib_lock, flags);
	if (cq->notify_queued) {
		list_del_init(&cq->notify_node);
		cq->notify_queued = false;
	}
	softib_forget_object(cq);
	cq->armed = 0;
	spin_unlock_irqrestore(&softib_lock, flags);
	/* the worker may be inside this CQ's handler right now */
	softib_wire_sync();
	kvfree(cq->ring);
	return 0;
}

int softib_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	struct softib_cq *cq = to_scq(ibcq);
	unsigned long flags;
	int i;

	spin_lock_irqsave(&softib_lock, flags);
	for (i = 0; i < n && cq->count; i++) {
		wc[i] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	return i;
}

int softib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct softib_cq *cq = to_scq(ibcq);
	unsigned long irqf;
	int ret = 0;

	spin_lock_irqsave(&softib_lock, irqf);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->armed = IB_CQ_NEXT_COMP;
	else if (cq->armed != IB_CQ_NEXT_COMP)
		cq->armed = IB_CQ_SOLICITED;
	/* closes the poll/arm race for ipoib NAPI and core cq.c (§3.8) */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		ret = 1;
	spin_unlock_irqrestore(&softib_lock, irqf);
	return ret;
}
