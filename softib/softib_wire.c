// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the wire.  One ordered worker takes QPs with pending send work off
 * a run list and delivers one message per step, entirely under softib_lock.
 * It also dispatches queued async events and CQ completion handlers, outside
 * the lock (§3.8, §7.5).  UD/GSI delivery (unicast, multicast, loopback,
 * GRH, Q_Key and P_Key rules) lives here; RC is in softib_rc.c.
 */
#include <linux/slab.h>
#include <linux/jiffies.h>
#include "softib.h"

struct softib_event {
	struct list_head node;
	struct ib_event ev;
};

static struct workqueue_struct *wire_wq;
static struct work_struct wire_work;
static LIST_HEAD(run_list);
static LIST_HEAD(event_list);
static LIST_HEAD(notify_list);
/* linear copy of one UD message (<= port MTU), only used under softib_lock */
static u8 ud_buf[4096];

unsigned long softib_scaled_jiffies(u64 usec)
{
	u64 us = div_u64(usec, softib_time_scale);

	return max_t(unsigned long, usecs_to_jiffies(us), 1);
}

void softib_wire_kick(void)
{
	if (wire_wq)
		queue_work(wire_wq, &wire_work);
}

/* Process context: wait until no worker pass can still reference a dying object. */
void softib_wire_sync(void)
{
	flush_work(&wire_work);
}

/* lock held */
void softib_qp_schedule(struct softib_qp *qp)
{
	if (qp->on_runlist || qp->dead || qp->wait != SOFTIB_WAIT_NONE)
		return;
	list_add_tail(&qp->run_node, &run_list);
	qp->on_runlist = true;
	softib_wire_kick();
}

void softib_qp_timer(struct timer_list *t)
{
	struct softib_qp *qp = from_timer(qp, t, timer);
	unsigned long flags;

	spin_lock_irqsave(&softib_lock, flags);
	if (!qp->dead && qp->wait != SOFTIB_WAIT_NONE) {
		if (qp->wait == SOFTIB_WAIT_ACK)
			qp->timed_out = true;
		qp->wait = SOFTIB_WAIT_NONE;
		if (qp->state == IB_QPS_RTS && qp->sq.count)
			softib_qp_schedule(qp);
	}
	spin_unlock_irqrestore(&softib_lock, flags);
}

/* lock held */
void softib_queue_event(struct ib_event *ev)
{
	struct softib_event *e = kmalloc(sizeof(*e), GFP_ATOMIC);

	if (!e) {
		pr_warn_ratelimited("softib: lost async event %d\n", ev->event);
		return;
	}
	e->ev = *ev;
	list_add_tail(&e->node, &event_list);
	softib_wire_kick();
}

/* lock held */
void softib_queue_cq_notify(struct softib_cq *cq)
{
	if (cq->notify_queued)
		return;
	cq->notify_queued = true;
	list_add_tail(&cq->notify_node, &notify_list);
	softib_wire_kick();
}

/* lock held: a QP/CQ/SRQ is being destroyed, drop its queued events */
void softib_forget_object(void *obj)
{
	struct softib_event *e, *tmp;

	list_for_each_entry_safe(e, tmp, &event_list, node) {
		if ((void *)e->ev.element.cq == obj) {
			list_del(&e->node);
			kfree(e);
		}
	}
}

static void dispatch_event(struct ib_event *ev)
{
	switch (ev->event) {
	case IB_EVENT_CQ_ERR: {
		struct ib_cq *cq = ev->element.cq;

		if (cq->event_handler)
			cq->event_handler(ev, cq->cq_context);
		break;
	}
	case IB_EVENT_SRQ_LIMIT_REACHED:
	case IB_EVENT_SRQ_ERR: {
		struct ib_srq *srq = ev->element.srq;

		if (srq->event_handler)
			srq->event_handler(ev, srq->srq_context);
		break;
	}
	default: {
		/* the ipoib CM TX QP has no handler (§3.2) */
		struct ib_qp *qp = ev->element.qp;

		if (qp->event_handler)
			qp->event_handler(ev, qp->qp_context);
		break;
	}
	}
}

u32 softib_sge_len(const struct ib_sge *sge, u32 n)
{
	u32 i, len = 0;

	for (i = 0; i < n; i++)
		len += sge[i].length;
	return len;
}

/* Scatter len bytes of src into the SGE list starting at byte off. */
int softib_copy_to_sges(const struct ib_sge *dst, u32 ndst, u32 off, const void *src, u32 len)
{
	u32 i;

	for (i = 0; i < ndst && len; i++) {
		u32 n;

		if (off >= dst[i].length) {
			off -= dst[i].length;
			continue;
		}
		n = min(len, dst[i].length - off);
		memcpy((void *)(uintptr_t)(dst[i].addr + off), src, n);
		src += n;
		len -= n;
		off = 0;
	}
	return len ? -EMSGSIZE : 0;
}

static void gather(void *dst, const struct ib_sge *sge, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		memcpy(dst, (void *)(uintptr_t)sge[i].addr, sge[i].length);
		dst += sge[i].length;
	}
}

static void make_grh(struct ib_grh *g, struct softib_port *sp, struct softib_swqe *w)
{
	memset(g, 0, sizeof(*g));
	g->version_tclass_flow = cpu_to_be32(6U << 28 | (u32)w->tclass << 20 |
					     (w->flow_label & 0xfffff));
	g->paylen = cpu_to_be16(w->length);
	g->next_hdr = 0x1b;
	g->hop_limit = w->hop_limit;
	g->sgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	g->sgid.global.interface_id = sp->guid;
	g->dgid = w->dgid;
}

/*
 * lock held: deliver one UD/GSI message to dq.  Returns 0 when a receive WQE
 * was consumed successfully; every drop is counted on the receiving port.
 */
int softib_deliver_ud(struct softib_qp *dq, struct softib_qp *src,
		      struct softib_swqe *w, const void *payload)
{
	struct softib_port *dp = &dq->sdev->ports[dq->port];
	struct softib_port *sp = &src->sdev->ports[src->port];
	struct softib_rwqe *r;
	struct ib_wc wc = {};
	u32 qkey;
	u16 pkey;
	int idx;

	if (dp->state != IB_PORT_ACTIVE) {
		softib_count(dp, SOFTIB_CNT_DROP_PORT_DOWN, 1);
		return -ENETDOWN;
	}
	/* IBA 10.3.1: SQD and SQE stop the send queue only; the receive queue goes on as in
	 * RTS (a UD QP in SQE after a send error still takes its receives) */
	if (dq->dead || (dq->ibqp.qp_type != IB_QPT_UD && dq->ibqp.qp_type != IB_QPT_GSI) ||
	    dq->state < IB_QPS_RTR || dq->state > IB_QPS_SQE) {
		softib_count(dp, SOFTIB_CNT_DROP_NO_QP, 1);
		return -ENOENT;
	}
	/* IBA 10.2.5: a remote Q_Key with the high bit set means "use my QP's Q_Key" */
	qkey = (w->remote_qkey & 0x80000000) ? src->qkey : w->remote_qkey;
	if (qkey != dq->qkey) {
		softib_count(dp, SOFTIB_CNT_DROP_QKEY, 1);
		return -EACCES;
	}
	pkey = w->pkey_index < sp->npkeys ? sp->pkeys[w->pkey_index] : 0;
	if (dq->ibqp.qp_type == IB_QPT_GSI) {
		idx = softib_pkey_find(dp, pkey);	/* QP1 accepts any table P_Key */
	} else {
		idx = dq->pkey_index;
		if (!softib_pkey_match(pkey, dp->pkeys[idx]))
			idx = -1;
	}
	if (idx < 0) {
		softib_count(dp, SOFTIB_CNT_DROP_PKEY, 1);
		return -EACCES;
	}
	r = softib_get_rwqe(dq);
	if (!r) {
		/* UD has no RNR: silently dropped (IBA 9.7.5.1.6) */
		softib_count(dp, SOFTIB_CNT_DROP_NO_RWQE, 1);
		return -ENOBUFS;
	}
	wc.wr_id = r->wr_id;
	wc.qp = &dq->ibqp;
	wc.opcode = IB_WC_RECV;
	wc.port_num = dq->port;
	/* the 40-byte GRH area is always reserved; payload at offset 40 (§3.1) */
	if (sizeof(struct ib_grh) + w->length > softib_sge_len(r->sge, r->num_sge)) {
		wc.status = IB_WC_LOC_LEN_ERR;
		softib_cq_push(dq->rcq, &wc, false);
		softib_put_rwqe(dq);
		softib_count(dp, SOFTIB_CNT_DROP_LEN, 1);
		return -EMSGSIZE;
	}
	if (w->grh) {
		struct ib_grh g;

		make_grh(&g, sp, w);
		softib_copy_to_sges(r->sge, r->num_sge, 0, &g, sizeof(g));
		wc.wc_flags |= IB_WC_GRH;
	}
	softib_copy_to_sges(r->sge, r->num_sge, sizeof(struct ib_grh), payload, w->length);
	wc.status = IB_WC_SUCCESS;
	wc.byte_len = sizeof(struct ib_grh) + w->length;
	wc.src_qp = src->qpn;
	wc.slid = sp->lid;
	wc.sl = w->sl;
	wc.pkey_index = idx;
	if (w->opcode == IB_WR_SEND_WITH_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = w->imm;
	}
	softib_cq_push(dq->rcq, &wc, w->send_flags & IB_SEND_SOLICITED);
	softib_put_rwqe(dq);
	softib_count(dp, SOFTIB_CNT_RX_PKTS, 1);
	softib_count(dp, SOFTIB_CNT_RX_BYTES, w->length);
	softib_count_msg(dp, dq->ibqp.qp_type, false, w->length, payload);
	if (dq->state == IB_QPS_SQD || dq->state == IB_QPS_SQE)
		softib_count(dp, SOFTIB_CNT_UD_RX_SQE, 1);
	return 0;
}

/* lock held: pop the UD SQ head; UD send errors do not kill the QP */
static void ud_complete(struct softib_qp *qp, enum ib_wc_status st)
{
	softib_pop_send(qp, st);
	qp->delayed_head = false;
}

/* lock held: route one unicast UD/GSI message by DLID and QPN and deliver it */
void softib_ud_unicast(struct softib_qp *src, struct softib_swqe *w, const void *payload)
{
	struct softib_port *sp = &src->sdev->ports[src->port];
	struct softib_port *dp = softib_port_by_lid(w->dlid);
	struct softib_qp *dq = dp ? softib_qp_lookup(dp, w->remote_qpn) : NULL;

	if (!dq) {
		softib_count(dp ? dp : sp, SOFTIB_CNT_DROP_NO_QP, 1);
		return;
	}
	softib_deliver_ud(dq, src, w, payload);
}

/* lock held: transmit one UD/GSI message */
static void process_ud(struct softib_qp *qp)
{
	struct softib_swqe *w = softib_ring_at(&qp->sq, 0);
	struct softib_port *sp = &qp->sdev->ports[qp->port];
	unsigned int ms;

	/* IBA 9.7.5.1.5 / C10-26: a UD message larger than the path MTU is a local length error */
	if (w->length > ib_mtu_enum_to_int(IB_MTU_4096) ||
	    (qp->ibqp.qp_type == IB_QPT_GSI && w->length != IB_MGMT_MAD_SIZE)) {
		softib_count(sp, SOFTIB_CNT_DROP_LEN, 1);
		ud_complete(qp, IB_WC_LOC_LEN_ERR);
		return;
	}
	if (sp->state != IB_PORT_ACTIVE) {
		softib_count(sp, SOFTIB_CNT_DROP_PORT_DOWN, 1);
		ud_complete(qp, IB_WC_SUCCESS);
		return;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD && !qp->delayed_head) {
		ms = softib_fault_ud_delay_ms(sp);
		if (ms) {
			softib_count(sp, SOFTIB_CNT_DELAYED, 1);
			qp->delayed_head = true;
			qp->wait = SOFTIB_WAIT_DELAY;
			mod_timer(&qp->timer, jiffies + msecs_to_jiffies(ms));
			return;
		}
	}
	if (qp->ud_send_err) {
		/* this send fails: the QP to SQE, the sends behind it flushed */
		qp->ud_send_err = false;
		softib_count(sp, SOFTIB_CNT_DROP_FAULT, 1);
		softib_ud_sq_error(qp);
		return;
	}
	gather(ud_buf, w->sge, w->num_sge);
	softib_count(sp, SOFTIB_CNT_TX_PKTS, 1);
	softib_count(sp, SOFTIB_CNT_TX_BYTES, w->length);
	if (qp->ibqp.qp_type == IB_QPT_UD)
		softib_count_msg(sp, IB_QPT_UD, true, w->length, NULL);

	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		struct ib_mad_hdr *h = (struct ib_mad_hdr *)ud_buf;

		if (softib_fault_drop_mad(sp, h->mgmt_class, be16_to_cpu(h->attr_id))) {
			softib_count(sp, SOFTIB_CNT_DROP_FAULT, 1);
			goto done;
		}
		if (h->mgmt_class == IB_MGMT_CLASS_CM)
			softib_count(sp, SOFTIB_CNT_CM_MADS, 1);
		softib_count_msg(sp, IB_QPT_GSI, true, w->length, ud_buf);	/* CM MADs by type */
		if (h->mgmt_class == IB_MGMT_CLASS_CM && softib_fault_hold_mad(sp, w, ud_buf))
			goto done;	/* on the wire for a while: delivered by release_held */
		if (w->dlid == SOFTIB_SM_LID) {
			softib_sa_handle(sp, w, (struct ib_mad *)ud_buf);
			goto done;
		}
	} else if (softib_fault_drop_ud(sp)) {
		softib_count(sp, SOFTIB_CNT_DROP_FAULT, 1);
		goto done;
	}

	if (w->dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE) && w->dlid != 0xffff) {
		if (!softib_mcast_deliver(qp, w, ud_buf))
			softib_count(sp, SOFTIB_CNT_DROP_MCAST, 1);
		goto done;
	}
	softib_ud_unicast(qp, w, ud_buf);
done:
	/* UD completes when the packet leaves, whatever the receiver did (§3.1) */
	ud_complete(qp, IB_WC_SUCCESS);
}

/* lock held: SA answers enter the requester's GSI RQ from the SM LID, no GRH (§2.2) */
void softib_deliver_mad(struct softib_port *dp, const void *mad)
{
	struct softib_qp *dq = dp->gsi;
	struct softib_rwqe *r;
	struct ib_wc wc = {};

	if (!dq || dq->state < IB_QPS_RTR || dq->state > IB_QPS_SQE) {	/* receives: as deliver_ud */
		softib_count(dp, SOFTIB_CNT_DROP_NO_QP, 1);
		return;
	}
	r = softib_get_rwqe(dq);
	if (!r) {
		softib_count(dp, SOFTIB_CNT_DROP_NO_RWQE, 1);
		return;
	}
	wc.wr_id = r->wr_id;
	wc.qp = &dq->ibqp;
	wc.opcode = IB_WC_RECV;
	wc.port_num = dp->num;
	if (softib_copy_to_sges(r->sge, r->num_sge, sizeof(struct ib_grh), mad,
				IB_MGMT_MAD_SIZE)) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else {
		wc.status = IB_WC_SUCCESS;
		wc.byte_len = sizeof(struct ib_grh) + IB_MGMT_MAD_SIZE;
		wc.src_qp = 1;
		wc.slid = SOFTIB_SM_LID;
		wc.pkey_index = 0;
		softib_count(dp, SOFTIB_CNT_RX_PKTS, 1);
		softib_count(dp, SOFTIB_CNT_RX_BYTES, IB_MGMT_MAD_SIZE);
	}
	softib_cq_push(dq->rcq, &wc, false);
	softib_put_rwqe(dq);
}

/* lock held */
static void process_qp(struct softib_qp *qp)
{
	if (qp->dead || qp->state != IB_QPS_RTS || qp->wait != SOFTIB_WAIT_NONE ||
	    !qp->sq.count)
		return;
	if (qp->ibqp.qp_type == IB_QPT_RC)
		softib_rc_process(qp);
	else
		process_ud(qp);
	if (qp->state == IB_QPS_RTS && qp->sq.count)
		softib_qp_schedule(qp);
}

static void wire_fn(struct work_struct *work)
{
	unsigned long flags;
	int budget = 512;

	spin_lock_irqsave(&softib_lock, flags);
	softib_fault_release_held();	/* CM MADs whose delay_cm time is over */
	spin_unlock_irqrestore(&softib_lock, flags);
	while (budget-- > 0) {
		spin_lock_irqsave(&softib_lock, flags);
		if (!list_empty(&event_list)) {
			struct softib_event *e =
				list_first_entry(&event_list, struct softib_event, node);

			list_del(&e->node);
			spin_unlock_irqrestore(&softib_lock, flags);
			dispatch_event(&e->ev);
			kfree(e);
			continue;
		}
		if (!list_empty(&notify_list)) {
			struct softib_cq *cq =
				list_first_entry(&notify_list, struct softib_cq, notify_node);

			list_del_init(&cq->notify_node);
			cq->notify_queued = false;
			spin_unlock_irqrestore(&softib_lock, flags);
			if (cq->ibcq.comp_handler)
				cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
			continue;
		}
		if (!list_empty(&run_list)) {
			struct softib_qp *qp =
				list_first_entry(&run_list, struct softib_qp, run_node);

			list_del_init(&qp->run_node);
			qp->on_runlist = false;
			process_qp(qp);
			spin_unlock_irqrestore(&softib_lock, flags);
			continue;
		}
		spin_unlock_irqrestore(&softib_lock, flags);
		return;
	}
	/* out of budget: yield the CPU and continue in a fresh pass */
	queue_work(wire_wq, &wire_work);
}

int softib_wire_init(void)
{
	INIT_WORK(&wire_work, wire_fn);
	wire_wq = alloc_ordered_workqueue("softib_wire", WQ_MEM_RECLAIM);
	return wire_wq ? 0 : -ENOMEM;
}

void softib_wire_exit(void)
{
	struct softib_event *e, *tmp;

	if (!wire_wq)
		return;
	destroy_workqueue(wire_wq);
	wire_wq = NULL;
	list_for_each_entry_safe(e, tmp, &event_list, node) {
		list_del(&e->node);
		kfree(e);
	}
}
