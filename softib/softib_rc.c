// SPDX-License-Identifier: GPL-2.0
/*
 * softib: message-level RC.  No PSNs or ACK packets: one send WQE is placed
 * into the responder's receive WQE (or NAKed) atomically under softib_lock,
 * and the send CQE is generated only after placement (the "ACK").  Messages
 * therefore arrive and complete in order.  RNR NAK, retry-exceeded and the
 * error transitions follow IBA 9.7.5 / 10.8 (and rvt_ruc_loopback).
 */
#include <linux/jiffies.h>
#include <linux/math64.h>
#include "softib.h"

/* IBA table 45: RNR NAK timer field -> microseconds (0 means 655.36 ms) */
static const u32 rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520
};

/* Scatter len bytes from one SGE list into another. */
static int copy_sges(const struct ib_sge *dst, u32 ndst, const struct ib_sge *src, u32 nsrc)
{
	u32 i, off = 0;

	for (i = 0; i < nsrc; i++) {
		if (softib_copy_to_sges(dst, ndst, off, (void *)(uintptr_t)src[i].addr,
					src[i].length))
			return -EMSGSIZE;
		off += src[i].length;
	}
	return 0;
}

static bool peer_ok(struct softib_qp *qp, struct softib_port *sp,
		    struct softib_port *dp, struct softib_qp *dq)
{
	if (sp->state != IB_PORT_ACTIVE || !dp || dp->state != IB_PORT_ACTIVE || !dq)
		return false;
	/* the responder must be an RC QP able to receive and connected to us */
	return dq->ibqp.qp_type == IB_QPT_RC &&
	       (dq->state == IB_QPS_RTR || dq->state == IB_QPS_RTS) &&
	       dq->dest_qpn == qp->qpn && dq->dlid == sp->lid;
}

/*
 * No responder: real hardware resends until the local ACK timeout
 * (4.096 us * 2^timeout) expires retry_cnt+1 times (IBA 9.7.6.1.3);
 * retry_exc=immediate short-cuts that like rdmavt's loopback_qp_drop.
 * timeout 0 means "wait forever" (IBA 9.7.6.1.3).
 */
static void peer_gone(struct softib_qp *qp, struct softib_port *sp)
{
	if (!softib_retry_immediate) {
		if (qp->timed_out) {
			qp->timed_out = false;
			if (qp->retry_left) {
				qp->retry_left--;
				goto wait;
			}
		} else {
			goto wait;
		}
	}
	softib_count(sp, SOFTIB_CNT_RETRY_EXC, 1);
	softib_complete_send(qp, IB_WC_RETRY_EXC_ERR);
	return;
wait:
	qp->wait = SOFTIB_WAIT_ACK;
	if (qp->timeout)
		mod_timer(&qp->timer, jiffies + softib_scaled_jiffies(div_u64(4096ULL << qp->timeout, 1000)));
}

/* IBA 9.7.5.2.8: RNR NAK; rnr_retry 7 means retry forever */
static void rnr_nak(struct softib_qp *qp, struct softib_port *sp, struct softib_qp *dq)
{
	softib_count(sp, SOFTIB_CNT_RNR_NAK, 1);
	if (qp->rnr_retry != 7) {
		if (!qp->rnr_left) {
			softib_count(sp, SOFTIB_CNT_RNR_RETRY_EXC, 1);
			softib_complete_send(qp, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->rnr_left--;
	}
	qp->wait = SOFTIB_WAIT_RNR;
	mod_timer(&qp->timer, jiffies + softib_scaled_jiffies(rnr_usec[dq->min_rnr_timer & 31]));
}

/* one message per ms of wall time through this gate; *next: when the next one may pass */
static bool trickle_gate(unsigned long *next, u32 ms)
{
	if (time_before(jiffies, *next))
		return true;
	*next = jiffies + msecs_to_jiffies(ms);
	return false;
}

/*
 * faults `rnr QPN trickle MS` (this QP) and `rx_trickle MS` (every RC QP of the host, QPs
 * created later too, one clock for all): a receiver that is slow, not dead: one message per
 * MS of wall time is accepted, every other one RNR NAKed (the requester retries it).
 */
static bool trickle_refuses(struct softib_qp *dq)
{
	struct softib_dev *sd = dq->sdev;

	if (dq->trickle_ms)
		return trickle_gate(&dq->trickle_next, dq->trickle_ms);
	if (sd->f_rx_trickle_ms)
		return trickle_gate(&sd->f_rx_trickle_next, sd->f_rx_trickle_ms);
	return false;
}

/* lock held: try to transfer the SQ head of an RTS RC QP */
void softib_rc_process(struct softib_qp *qp)
{
	struct softib_swqe *w = softib_ring_at(&qp->sq, 0);
	struct softib_port *sp = &qp->sdev->ports[qp->port];
	struct softib_port *dp = softib_port_by_lid(qp->dlid);
	struct softib_qp *dq = dp ? softib_qp_lookup(dp, qp->dest_qpn) : NULL;
	struct softib_rwqe *r;
	struct ib_wc wc = {};

	if (!peer_ok(qp, sp, dp, dq)) {
		peer_gone(qp, sp);
		return;
	}
	qp->timed_out = false;
	qp->retry_left = qp->retry_cnt;

	/*
	 * fault knobs: `rnr QPN N|forever|trickle MS` on this QP, `rx_stop` and `rx_trickle MS`
	 * on the responder's whole host.
	 * A NAKed message stays at the head of the requester's SQ (IBA 9.7.5.2.8): with
	 * rnr_retry 7 and `forever` it is retried at every RNR timer expiry and never completes.
	 */
	r = dq->force_rnr || dq->force_rnr_forever || dq->sdev->f_rx_stop ||
		trickle_refuses(dq) ? NULL : softib_get_rwqe(dq);
	if (!r) {
		if (dq->force_rnr)
			dq->force_rnr--;
		rnr_nak(qp, sp, dq);
		return;
	}

	wc.wr_id = r->wr_id;
	wc.qp = &dq->ibqp;
	wc.opcode = IB_WC_RECV;
	wc.port_num = dq->port;
	if (w->length > softib_sge_len(r->sge, r->num_sge) ||
	    copy_sges(r->sge, r->num_sge, w->sge, w->num_sge)) {
		/*
		 * IBA 9.7.5.2.3/10.8.3.2: responder local length error, the
		 * requester sees a remote invalid request NAK; both QPs go to ERR.
		 */
		wc.status = IB_WC_LOC_LEN_ERR;
		softib_cq_push(dq->rcq, &wc, false);
		softib_put_rwqe(dq);
		softib_qp_error(dq);
		softib_count(sp, SOFTIB_CNT_REM_ERR, 1);
		softib_complete_send(qp, IB_WC_REM_INV_REQ_ERR);
		return;
	}
	if (dq->state == IB_QPS_RTR && !dq->comm_est) {
		/* IBA 11.6.3.1: first message received in RTR */
		dq->comm_est = true;
		softib_qp_event(dq, IB_EVENT_COMM_EST);
	}
	wc.status = IB_WC_SUCCESS;
	wc.byte_len = w->length;
	wc.src_qp = qp->qpn;
	wc.slid = sp->lid;
	wc.sl = rdma_ah_get_sl(&qp->ah_attr);
	wc.pkey_index = dq->pkey_index;
	if (w->opcode == IB_WR_SEND_WITH_IMM) {
		wc.wc_flags = IB_WC_WITH_IMM;
		wc.ex.imm_data = w->imm;
	}
	softib_cq_push(dq->rcq, &wc, w->send_flags & IB_SEND_SOLICITED);
	softib_put_rwqe(dq);
	softib_count(dp, SOFTIB_CNT_RX_PKTS, 1);
	softib_count(dp, SOFTIB_CNT_RX_BYTES, w->length);
	softib_count(sp, SOFTIB_CNT_TX_PKTS, 1);
	softib_count(sp, SOFTIB_CNT_TX_BYTES, w->length);
	softib_count_msg(dp, IB_QPT_RC, false, w->length, NULL);
	softib_count_msg(sp, IB_QPT_RC, true, w->length, NULL);
	softib_complete_send(qp, IB_WC_SUCCESS);
}
