// SPDX-License-Identifier: GPL-2.0
/*
 * softib: QP and SRQ objects, the modify_qp state machine, work request
 * posting, flush-on-error and LAST_WQE_REACHED.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include "softib.h"

int softib_ring_init(struct softib_ring *r, u32 size, u32 stride)
{
	r->size = max_t(u32, size, 1);
	r->stride = stride;
	r->head = 0;
	r->count = 0;
	r->buf = kvcalloc(r->size, stride, GFP_KERNEL);
	return r->buf ? 0 : -ENOMEM;
}

void softib_ring_free(struct softib_ring *r)
{
	kvfree(r->buf);
	r->buf = NULL;
}

static void ring_pop(struct softib_ring *r)
{
	r->head = (r->head + 1) % r->size;
	r->count--;
}

/* lock held */
struct softib_qp *softib_qp_lookup(struct softib_port *p, u32 qpn)
{
	struct softib_qp *qp;

	if (qpn == 1)
		return p->gsi;
	qp = xa_load(&p->sdev->qps, qpn);
	if (!qp || qp->dead || qp->vanished || qp->port != p->num)
		return NULL;
	return qp;
}

void softib_qp_event(struct softib_qp *qp, enum ib_event_type t)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = t,
	};

	softib_queue_event(&ev);
}

static void flush_wc(struct softib_qp *qp, struct softib_cq *cq, u64 wr_id,
		     enum ib_wc_opcode op)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = op,
		.qp = &qp->ibqp,
		.port_num = qp->port,
	};

	softib_count(&qp->sdev->ports[qp->port ? qp->port : 1], SOFTIB_CNT_FLUSH, 1);
	softib_cq_push(cq, &wc, false);
}

/* lock held: the send queue stops: nothing runs or waits for it any more */
static void sq_stop(struct softib_qp *qp)
{
	qp->wait = SOFTIB_WAIT_NONE;
	qp->delayed_head = false;
	del_timer(&qp->timer);
	if (qp->on_runlist) {
		list_del_init(&qp->run_node);
		qp->on_runlist = false;
	}
}

/* lock held: every send still queued completes "flushed in error", in order */
static void sq_flush(struct softib_qp *qp)
{
	while (qp->sq.count) {
		struct softib_swqe *w = softib_ring_at(&qp->sq, 0);

		flush_wc(qp, qp->scq, w->wr_id, IB_WC_SEND);
		ring_pop(&qp->sq);
	}
}

/*
 * lock held.  IBA 10.3.1/11.6.3: in the Error state every outstanding WQE
 * completes with "flushed in error", in order; a QP attached to an SRQ
 * raises LAST_WQE_REACHED instead of flushing receives (11.6.3.3).  Since
 * deliveries happen atomically under this lock, every receive CQE of this QP
 * is already in its CQ: a drain WR posted after the event completes last.
 */
void softib_qp_error(struct softib_qp *qp)
{
	if (qp->state == IB_QPS_ERR)
		return;
	qp->state = IB_QPS_ERR;
	/* a UD send fault armed before belongs to the QP's life in RTS/SQE: none fires after */
	qp->ud_send_err = false;
	qp->ud_sqe_err = false;
	sq_stop(qp);
	sq_flush(qp);
	if (qp->srq) {
		softib_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	} else {
		while (qp->rq.count) {
			struct softib_rwqe *w = softib_ring_at(&qp->rq, 0);

			flush_wc(qp, qp->rcq, w->wr_id, IB_WC_RECV);
			ring_pop(&qp->rq);
		}
	}
}

/*
 * lock held.  IBA 10.3.1: a UD send error moves the QP to SQE.  The send that failed, the SQ
 * head if there is one, completes with IB_WC_LOC_QP_OP_ERR, every send behind it is flushed
 * in order, and receives go on until the consumer modifies the QP back to RTS.  Returns
 * whether a queued send took the error (if none did, the caller reports it otherwise).
 */
bool softib_ud_sq_error(struct softib_qp *qp)
{
	bool head = qp->sq.count;

	qp->state = IB_QPS_SQE;
	sq_stop(qp);
	if (head)
		softib_pop_send(qp, IB_WC_LOC_QP_OP_ERR);
	sq_flush(qp);
	return head;
}

/*
 * lock held: pop the SQ head, with a CQE if it was signalled or failed (an error always
 * completes, IBA 10.8.3.1, whatever the signalling mode).
 */
void softib_pop_send(struct softib_qp *qp, enum ib_wc_status st)
{
	struct softib_swqe *w = softib_ring_at(&qp->sq, 0);
	struct ib_wc wc = {
		.wr_id = w->wr_id,
		.status = st,
		.opcode = IB_WC_SEND,
		.byte_len = w->length,
		.qp = &qp->ibqp,
		.port_num = qp->port,
	};

	if (st != IB_WC_SUCCESS || qp->sq_sig_type == IB_SIGNAL_ALL_WR ||
	    (w->send_flags & IB_SEND_SIGNALED))
		softib_cq_push(qp->scq, &wc, false);
	ring_pop(&qp->sq);
}

/* lock held: complete the RC SQ head; errors kill the QP */
void softib_complete_send(struct softib_qp *qp, enum ib_wc_status st)
{
	softib_pop_send(qp, st);
	qp->rnr_left = qp->rnr_retry;
	qp->retry_left = qp->retry_cnt;
	if (st != IB_WC_SUCCESS)
		softib_qp_error(qp);
}

/* lock held */
struct softib_rwqe *softib_get_rwqe(struct softib_qp *qp)
{
	struct softib_ring *r = qp->srq ? &qp->srq->rq : &qp->rq;

	return r->count ? softib_ring_at(r, 0) : NULL;
}

/* lock held: consume the head receive WQE (after its CQE was pushed) */
void softib_put_rwqe(struct softib_qp *qp)
{
	struct softib_srq *srq = qp->srq;

	if (!srq) {
		ring_pop(&qp->rq);
		return;
	}
	ring_pop(&srq->rq);
	/* IBA 10.2.9.3: limit event once the WQE count drops below the armed limit */
	if (srq->limit && srq->rq.count < srq->limit) {
		struct ib_event ev = {
			.device = srq->ibsrq.device,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->limit = 0;
		softib_queue_event(&ev);
	}
}

int softib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		     struct ib_udata *udata)
{
	struct softib_qp *qp = to_sqp(ibqp);
	struct softib_dev *sd = to_sdev(ibqp->device);
	struct ib_qp_cap *cap = &init->cap;
	unsigned long flags;
	u32 qpn;
	int err;

	if (udata)
		return -EOPNOTSUPP;
	if (init->qp_type != IB_QPT_GSI && init->qp_type != IB_QPT_SMI) {
		bool fail;

		spin_lock_irqsave(&softib_lock, flags);
		fail = sd->f_fail_create_qp;
		if (fail)
			sd->f_fail_create_qp--;	/* fault fail_create_qp N */
		spin_unlock_irqrestore(&softib_lock, flags);
		if (fail)
			return -ENOMEM;
	}
	switch (init->qp_type) {
	case IB_QPT_GSI:
		if (init->port_num < 1 || init->port_num > softib_ports_per_host)
			return -EINVAL;
		break;
	case IB_QPT_UD:
	case IB_QPT_RC:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags & ~IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK)
		return -EOPNOTSUPP;
	if (cap->max_send_wr > SOFTIB_MAX_QP_WR || cap->max_recv_wr > SOFTIB_MAX_QP_WR ||
	    cap->max_send_sge > SOFTIB_MAX_SGE || cap->max_recv_sge > sd->recv_sge ||
	    cap->max_inline_data > 0)
		return -EINVAL;
	if (init->srq && !sd->srq)
		return -EINVAL;

	qp->sdev = sd;
	qp->state = IB_QPS_RESET;
	qp->sq_sig_type = init->sq_sig_type;
	qp->create_flags = init->create_flags;
	qp->max_send_sge = max_t(u32, cap->max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, cap->max_recv_sge, 1);
	qp->scq = to_scq(init->send_cq);
	qp->rcq = to_scq(init->recv_cq);
	qp->srq = init->srq ? to_ssrq(init->srq) : NULL;
	INIT_LIST_HEAD(&qp->run_node);
	timer_setup(&qp->timer, softib_qp_timer, 0);

	err = softib_ring_init(&qp->sq, cap->max_send_wr,
			       sizeof(struct softib_swqe) + qp->max_send_sge * sizeof(struct ib_sge));
	if (err)
		return err;
	if (!qp->srq) {
		err = softib_ring_init(&qp->rq, cap->max_recv_wr,
				       sizeof(struct softib_rwqe) + qp->max_recv_sge * sizeof(struct ib_sge));
		if (err)
			goto out_sq;
	}

	if (init->qp_type == IB_QPT_GSI) {
		/* ib_mad keys on QPN 1; the core does not assign it (§2.1) */
		qp->port = init->port_num;
		qp->qpn = 1;
		spin_lock_irqsave(&softib_lock, flags);
		if (sd->ports[qp->port].gsi) {
			spin_unlock_irqrestore(&softib_lock, flags);
			err = -EBUSY;
			goto out_rq;
		}
		sd->ports[qp->port].gsi = qp;
		spin_unlock_irqrestore(&softib_lock, flags);
	} else {
		err = xa_alloc_cyclic_irq(&sd->qps, &qpn, qp,
					  XA_LIMIT(SOFTIB_FIRST_QPN, SOFTIB_MAX_QPN),
					  &sd->next_qpn, GFP_KERNEL);
		if (err < 0)
			goto out_rq;
		qp->qpn = qpn;
	}
	ibqp->qp_num = qp->qpn;
	cap->max_send_wr = qp->sq.size;
	cap->max_recv_wr = qp->srq ? 0 : qp->rq.size;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->max_recv_sge;
	cap->max_inline_data = 0;
	return 0;

out_rq:
	softib_ring_free(&qp->rq);
out_sq:
	softib_ring_free(&qp->sq);
	return err;
}

int softib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct softib_qp *qp = to_sqp(ibqp);
	struct softib_dev *sd = qp->sdev;
	unsigned long flags;

	spin_lock_irqsave(&softib_lock, flags);
	qp->dead = true;
	qp->state = IB_QPS_RESET;
	if (qp->on_runlist) {
		list_del_init(&qp->run_node);
		qp->on_runlist = false;
	}
	if (qp->qpn == 1 && sd->ports[qp->port].gsi == qp)
		sd->ports[qp->port].gsi = NULL;
	softib_mcast_detach_all(qp);
	softib_forget_object(qp);
	spin_unlock_irqrestore(&softib_lock, flags);
	if (qp->qpn != 1)
		xa_erase_irq(&sd->qps, qp->qpn);
	/* §7.5.2: no timer and no worker pass may still see this QP */
	del_timer_sync(&qp->timer);
	softib_wire_sync();
	softib_ring_free(&qp->rq);
	softib_ring_free(&qp->sq);
	return 0;
}

static int check_attrs(struct softib_qp *qp, struct ib_qp_attr *a, int mask)
{
	struct softib_dev *sd = qp->sdev;
	u32 port = (mask & IB_QP_PORT) ? a->port_num : qp->port;

	if ((mask & IB_QP_PORT) && (a->port_num < 1 || a->port_num > softib_ports_per_host))
		return -EINVAL;
	if (qp->ibqp.qp_type == IB_QPT_GSI && (mask & IB_QP_PORT) && a->port_num != qp->port)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    (!port || a->pkey_index >= sd->ports[port].npkeys))
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) && (a->path_mtu < IB_MTU_256 || a->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_AV) && (a->ah_attr.type != RDMA_AH_ATTR_TYPE_IB ||
				  !rdma_ah_get_dlid(&a->ah_attr)))
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && a->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && a->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && a->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && a->dest_qp_num > SOFTIB_MAX_QPN)
		return -EINVAL;
	return 0;
}

static void qp_reset(struct softib_qp *qp)
{
	qp->sq.head = qp->sq.count = 0;
	qp->rq.head = qp->rq.count = 0;
	qp->comm_est = false;
	qp->timed_out = false;
	qp->force_rnr = 0;
	qp->force_rnr_forever = false;
	qp->trickle_ms = 0;
	qp->ud_send_err = false;
	qp->ud_sqe_err = false;
	sq_stop(qp);
}

int softib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *a, int mask,
		     struct ib_udata *udata)
{
	struct softib_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, new;
	unsigned long flags;
	int err;

	if (udata && udata->inlen)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&softib_lock, flags);
	cur = (mask & IB_QP_CUR_STATE) ? a->cur_qp_state : qp->state;
	new = (mask & IB_QP_STATE) ? a->qp_state : cur;
	if (cur != qp->state || !ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = check_attrs(qp, a, mask);
	if (err)
		goto out;
	/* fault `modify_err QPN`: every move to RESET, INIT, RTR or RTS is refused, as by an HCA
	 * whose firmware fails the command; the QP stays as it was (moves to ERR still work) */
	if (qp->modify_err && (mask & IB_QP_STATE) && new <= IB_QPS_RTS) {
		err = -EIO;
		goto out;
	}

	if (mask & IB_QP_PORT)
		qp->port = a->port_num;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = a->pkey_index;
	if (mask & IB_QP_QKEY)
		qp->qkey = a->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = a->qp_access_flags;
	if (mask & IB_QP_AV) {
		qp->ah_attr = a->ah_attr;
		qp->ah_attr.grh.sgid_attr = NULL;
		qp->dlid = rdma_ah_get_dlid(&a->ah_attr);
	}
	if (mask & IB_QP_PATH_MTU)
		qp->path_mtu = a->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = a->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = a->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = a->sq_psn;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = a->min_rnr_timer;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = a->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = a->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = a->rnr_retry;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = a->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = a->max_dest_rd_atomic;

	if (new != cur) {
		switch (new) {
		case IB_QPS_RESET:
			qp_reset(qp);
			qp->state = new;
			break;
		case IB_QPS_ERR:
			softib_qp_error(qp);
			break;
		case IB_QPS_RTS:
			/* out of SQE: the error `ud_sqe` still owed belonged to that SQE */
			qp->ud_sqe_err = false;
			qp->state = new;
			qp->rnr_left = qp->rnr_retry;
			qp->retry_left = qp->retry_cnt;
			if (qp->sq.count)
				softib_qp_schedule(qp);
			break;
		default:
			qp->state = new;
			break;
		}
	}
out:
	spin_unlock_irqrestore(&softib_lock, flags);
	return err;
}

int softib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *a, int mask,
		    struct ib_qp_init_attr *init)
{
	struct softib_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	memset(a, 0, sizeof(*a));
	memset(init, 0, sizeof(*init));
	spin_lock_irqsave(&softib_lock, flags);
	a->qp_state = a->cur_qp_state = qp->state;
	a->path_mtu = qp->path_mtu ? qp->path_mtu : IB_MTU_4096;
	a->qkey = qp->qkey;
	a->rq_psn = qp->rq_psn;
	a->sq_psn = qp->sq_psn;
	a->dest_qp_num = qp->dest_qpn;
	a->qp_access_flags = qp->access;
	a->ah_attr = qp->ah_attr;
	a->pkey_index = qp->pkey_index;
	a->port_num = qp->port;
	a->min_rnr_timer = qp->min_rnr_timer;
	a->timeout = qp->timeout;
	a->retry_cnt = qp->retry_cnt;
	a->rnr_retry = qp->rnr_retry;
	a->max_rd_atomic = qp->max_rd_atomic;
	a->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	a->cap.max_send_wr = qp->sq.size;
	a->cap.max_recv_wr = qp->srq ? 0 : qp->rq.size;
	a->cap.max_send_sge = qp->max_send_sge;
	a->cap.max_recv_sge = qp->max_recv_sge;
	spin_unlock_irqrestore(&softib_lock, flags);
	init->cap = a->cap;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_type = qp->sq_sig_type;
	init->create_flags = qp->create_flags;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->port_num = qp->port;
	return 0;
}

static int post_one_send(struct softib_qp *qp, const struct ib_send_wr *wr)
{
	struct softib_swqe *w;

	if (wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		break;
	default:
		return -EINVAL;		/* RDMA/atomics are not implemented */
	}
	if (wr->send_flags & IB_SEND_INLINE)
		return -EINVAL;		/* max_inline_data is 0 */
	if ((qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) && !ud_wr(wr)->ah)
		return -EINVAL;
	if (qp->sq.count == qp->sq.size)
		return -ENOMEM;

	w = softib_ring_tail(&qp->sq);
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->send_flags = wr->send_flags;
	w->imm = wr->ex.imm_data;
	w->num_sge = wr->num_sge;
	memcpy(w->sge, wr->sg_list, wr->num_sge * sizeof(*w->sge));
	w->length = softib_sge_len(w->sge, w->num_sge);
	if (qp->ibqp.qp_type != IB_QPT_RC) {
		const struct ib_ud_wr *u = ud_wr(wr);
		struct rdma_ah_attr *ah = &to_sah(u->ah)->attr;

		w->dlid = rdma_ah_get_dlid(ah);
		w->sl = rdma_ah_get_sl(ah);
		w->grh = rdma_ah_get_ah_flags(ah) & IB_AH_GRH;
		if (w->grh) {
			w->dgid = ah->grh.dgid;
			w->flow_label = ah->grh.flow_label;
			w->tclass = ah->grh.traffic_class;
			w->hop_limit = ah->grh.hop_limit;
		}
		w->remote_qpn = u->remote_qpn;
		w->remote_qkey = u->remote_qkey;
		w->pkey_index = qp->ibqp.qp_type == IB_QPT_GSI ? u->pkey_index : qp->pkey_index;
	}
	qp->sq.count++;
	return 0;
}

/* Atomic context allowed (ib_mad posts under a spinlock, §2.1). */
int softib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad)
{
	struct softib_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&softib_lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->state == IB_QPS_ERR || qp->state == IB_QPS_SQE) {
			/* IBA 10.8.3.3: WRs posted in Error complete flushed (rxe/siw do too) */
			if (wr->num_sge > qp->max_send_sge) {
				err = -EINVAL;
				break;
			}
			if (qp->ud_sqe_err) {
				/* fault ud_sqe: the send error that moved the QP to SQE */
				struct ib_wc wc = { .wr_id = wr->wr_id, .status = IB_WC_LOC_QP_OP_ERR,
						    .opcode = IB_WC_SEND, .qp = &qp->ibqp,
						    .port_num = qp->port };

				qp->ud_sqe_err = false;
				softib_cq_push(qp->scq, &wc, false);
				continue;
			}
			flush_wc(qp, qp->scq, wr->wr_id, IB_WC_SEND);
			continue;
		}
		if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
			err = -EINVAL;
			break;
		}
		err = post_one_send(qp, wr);
		if (err)
			break;
	}
	if (qp->state == IB_QPS_RTS && qp->sq.count)
		softib_qp_schedule(qp);
	spin_unlock_irqrestore(&softib_lock, flags);
	if (err)
		*bad = wr;
	return err;
}

static int post_one_recv(struct softib_ring *r, u32 max_sge, const struct ib_recv_wr *wr)
{
	struct softib_rwqe *w;

	if (wr->num_sge > max_sge)
		return -EINVAL;
	if (r->count == r->size)
		return -ENOMEM;
	w = softib_ring_tail(r);
	w->wr_id = wr->wr_id;
	w->num_sge = wr->num_sge;
	memcpy(w->sge, wr->sg_list, wr->num_sge * sizeof(*w->sge));
	r->count++;
	return 0;
}

/* IBA 10.8.3.2: receives may be posted from INIT on (not in RESET). */
int softib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad)
{
	struct softib_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&softib_lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->srq || qp->state == IB_QPS_RESET) {
			err = -EINVAL;
			break;
		}
		if (qp->state == IB_QPS_ERR) {
			if (wr->num_sge > qp->max_recv_sge) {
				err = -EINVAL;
				break;
			}
			flush_wc(qp, qp->rcq, wr->wr_id, IB_WC_RECV);
			continue;
		}
		err = post_one_recv(&qp->rq, qp->max_recv_sge, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	if (err)
		*bad = wr;
	return err;
}

int softib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		      struct ib_udata *udata)
{
	struct softib_srq *srq = to_ssrq(ibsrq);
	int err;

	/* srq=0 / host_srq=: ipoib treats -EOPNOTSUPP as "no SRQ" (§1.1) */
	if (!to_sdev(ibsrq->device)->srq)
		return -EOPNOTSUPP;
	if (udata || init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!init->attr.max_wr || init->attr.max_wr > SOFTIB_MAX_SRQ_WR ||
	    init->attr.max_sge > to_sdev(ibsrq->device)->recv_sge ||
	    init->attr.srq_limit > init->attr.max_wr)
		return -EINVAL;
	srq->max_sge = max_t(u32, init->attr.max_sge, 1);
	err = softib_ring_init(&srq->rq, init->attr.max_wr,
			       sizeof(struct softib_rwqe) + srq->max_sge * sizeof(struct ib_sge));
	if (err)
		return err;
	srq->limit = init->attr.srq_limit;
	init->attr.max_wr = srq->rq.size;
	init->attr.max_sge = srq->max_sge;
	return 0;
}

int softib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct softib_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;		/* resize not supported */
	spin_lock_irqsave(&softib_lock, flags);
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->rq.size)
			err = -EINVAL;
		else
			srq->limit = attr->srq_limit;	/* arms the limit event */
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	return err;
}

int softib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct softib_srq *srq = to_ssrq(ibsrq);

	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

int softib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct softib_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&softib_lock, flags);
	softib_forget_object(srq);
	spin_unlock_irqrestore(&softib_lock, flags);
	softib_wire_sync();
	softib_ring_free(&srq->rq);
	return 0;
}

int softib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	struct softib_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&softib_lock, flags);
	for (; wr; wr = wr->next) {
		err = post_one_recv(&srq->rq, srq->max_sge, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	if (err)
		*bad = wr;
	return err;
}
