// SPDX-License-Identifier: GPL-2.0
/*
 * softib_rctest: an in-kernel verbs client that drives RC QPs on one softib
 * device directly (two QPs connected to each other through the fabric) and
 * prints TAP lines to the kernel log ("softib_rctest: ok N - ...").
 *
 * Cases: SEND with 3 SGEs, SEND_WITH_IMM, the RNR matrix (rnr_retry 0/3/7
 * against a starved receiver, IBA 9.7.5.2.8), too-long message (IBA 10.8.3),
 * bad work requests, post on an ERR QP (flush), retry-exceeded after the
 * peer is destroyed, UD errors (receive and MTU length errors, Q_Key
 * mismatch, post before RTS), ib_resize_cq, and a raw RC throughput stream.
 * All work is done at module load; the module stays loaded so the log can be
 * read and is removed with rmmod.
 *
 * watch=1 runs none of those: it connects one QP pair (requester rnr_retry 7)
 * and a kthread sends one 4 KiB message after another until rmmod, counting
 * completions in the read-only parameters watch_ok / watch_err, so a scenario
 * can stop the receiver (softib fault knob rx_stop) and watch the stream stall
 * and resume (softib-rx-stop-rnr7).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/kthread.h>
#include <rdma/ib_verbs.h>

static char *dev = "softib0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "ib_device to test (default softib0)");
static int stream_mb = 64;
module_param(stream_mb, int, 0444);
MODULE_PARM_DESC(stream_mb, "MiB to stream in the throughput case (default 64)");

static bool watch;
module_param(watch, bool, 0444);
MODULE_PARM_DESC(watch, "1: only the watch stream (rnr_retry 7) until rmmod, see watch_ok/watch_err");
static int watch_ok, watch_err;
module_param(watch_ok, int, 0444);
MODULE_PARM_DESC(watch_ok, "watch=1: sends completed successfully so far (read-only)");
module_param(watch_err, int, 0444);
MODULE_PARM_DESC(watch_err, "watch=1: error completions so far (read-only; the stream stops at the first)");

#define MSG 65536
#define DEPTH 64

struct ep {
	struct ib_cq *cq;
	struct ib_qp *qp;
	void *buf;
};

struct ctx {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u16 lid;
	struct ep a, b;
};

static int tap_n, tap_fail;

static void tap(bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	tap_n++;
	if (!ok)
		tap_fail++;
	pr_info("softib_rctest: %s %d - %pV\n", ok ? "ok" : "not ok", tap_n, &vaf);
	va_end(args);
}

static int ep_create(struct ctx *c, struct ep *e)
{
	struct ib_cq_init_attr ca = { .cqe = 4 * DEPTH };
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 4, .max_recv_sge = 4 },
	};

	e->buf = kzalloc(2 * MSG, GFP_KERNEL);
	if (!e->buf)
		return -ENOMEM;
	e->cq = ib_create_cq(c->ibdev, NULL, NULL, NULL, &ca);
	if (IS_ERR(e->cq))
		return PTR_ERR(e->cq);
	qa.send_cq = qa.recv_cq = e->cq;
	e->qp = ib_create_qp(c->pd, &qa);
	if (IS_ERR(e->qp)) {
		int err = PTR_ERR(e->qp);

		e->qp = NULL;
		return err;
	}
	return 0;
}

static void ep_destroy(struct ep *e)
{
	if (e->qp && !IS_ERR(e->qp))
		ib_destroy_qp(e->qp);
	if (e->cq && !IS_ERR(e->cq))
		ib_destroy_cq(e->cq);
	kfree(e->buf);
	memset(e, 0, sizeof(*e));
}

/* RESET -> INIT -> RTR, connected to the peer QP (as ib_cm would do) */
static int connect_rtr(struct ctx *c, struct ep *e, u32 dqpn, u8 min_rnr)
{
	struct ib_qp_attr at = {};
	int err;

	at.qp_state = IB_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	err = ib_modify_qp(e->qp, &at, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&at, 0, sizeof(at));
	at.qp_state = IB_QPS_RTR;
	at.path_mtu = IB_MTU_4096;
	at.dest_qp_num = dqpn;
	at.min_rnr_timer = min_rnr;
	at.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&at.ah_attr, c->lid);
	rdma_ah_set_port_num(&at.ah_attr, 1);
	return ib_modify_qp(e->qp, &at, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			    IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			    IB_QP_MIN_RNR_TIMER);
}

static int to_rts(struct ep *e, u8 rnr_retry)
{
	struct ib_qp_attr at = {};

	at.qp_state = IB_QPS_RTS;
	at.timeout = 14;
	at.retry_cnt = 1;
	at.rnr_retry = rnr_retry;
	return ib_modify_qp(e->qp, &at, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/* RESET -> INIT -> RTR -> RTS */
static int connect(struct ctx *c, struct ep *e, u32 dqpn, u8 min_rnr, u8 rnr_retry)
{
	return connect_rtr(c, e, dqpn, min_rnr) ?: to_rts(e, rnr_retry);
}

static int pair_up(struct ctx *c, u8 b_min_rnr, u8 a_rnr_retry)
{
	int err = ep_create(c, &c->a) ?: ep_create(c, &c->b);

	if (err)
		return err;
	return connect(c, &c->a, c->b.qp->qp_num, 0, a_rnr_retry) ?:
	       connect(c, &c->b, c->a.qp->qp_num, b_min_rnr, 7);
}

static void pair_down(struct ctx *c)
{
	ep_destroy(&c->a);
	ep_destroy(&c->b);
}

/* poll one CQE, waiting up to ms milliseconds; returns 1, or 0 on timeout */
static int poll1(struct ib_cq *cq, struct ib_wc *wc, int ms)
{
	ktime_t end = ktime_add_ms(ktime_get(), ms);

	do {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return 1;
		usleep_range(200, 400);
	} while (ktime_before(ktime_get(), end));
	return 0;
}

static int post_recv(struct ep *e, u64 id, u32 off, u32 len)
{
	struct ib_sge sge = { .addr = (uintptr_t)e->buf + off, .length = len,
			      .lkey = e->qp->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(e->qp, &wr, NULL);
}

static int post_send(struct ep *e, u64 id, enum ib_wr_opcode op, struct ib_sge *sge, int n)
{
	struct ib_send_wr wr = { .wr_id = id, .opcode = op, .sg_list = sge, .num_sge = n,
				 .send_flags = IB_SEND_SIGNALED };
	const struct ib_send_wr *bad;

	if (op == IB_WR_SEND_WITH_IMM)
		wr.ex.imm_data = cpu_to_be32(0xc0ffee);
	return ib_post_send(e->qp, &wr, &bad);
}

static int send_simple(struct ep *e, u64 id, u32 len)
{
	struct ib_sge sge = { .addr = (uintptr_t)e->buf, .length = len,
			      .lkey = e->qp->pd->local_dma_lkey };

	return post_send(e, id, IB_WR_SEND, &sge, 1);
}

static void case_send(struct ctx *c)
{
	struct ib_sge sge[3];
	struct ib_wc wc;
	u8 *src, *dst;
	int i, ok;

	if (pair_up(c, 14, 7)) {
		tap(false, "SEND: set up QP pair");
		return;
	}
	src = c->a.buf;
	dst = c->b.buf;
	for (i = 0; i < 300; i++)
		src[i] = i * 7;
	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)src + i * 100;
		sge[i].length = 100;
		sge[i].lkey = c->pd->local_dma_lkey;
	}
	post_recv(&c->b, 11, 0, 4096);
	post_send(&c->a, 22, IB_WR_SEND, sge, 3);
	ok = poll1(c->b.cq, &wc, 2000) && wc.status == IB_WC_SUCCESS && wc.wr_id == 11 &&
	     wc.opcode == IB_WC_RECV && wc.byte_len == 300 && wc.src_qp == c->a.qp->qp_num &&
	     !memcmp(src, dst, 300);
	tap(ok, "SEND 3 SGEs: receive CQE len 300, data intact (status %d len %u)",
	    wc.status, wc.byte_len);
	ok = poll1(c->a.cq, &wc, 2000) && wc.status == IB_WC_SUCCESS && wc.wr_id == 22;
	tap(ok, "SEND: send CQE success after placement");

	post_recv(&c->b, 12, 0, 4096);
	post_send(&c->a, 23, IB_WR_SEND_WITH_IMM, sge, 1);
	ok = poll1(c->b.cq, &wc, 2000) && wc.status == IB_WC_SUCCESS &&
	     (wc.wc_flags & IB_WC_WITH_IMM) && wc.ex.imm_data == cpu_to_be32(0xc0ffee);
	tap(ok, "SEND_WITH_IMM: IB_WC_WITH_IMM and imm_data delivered");
	poll1(c->a.cq, &wc, 2000);

	/* bad work requests fail synchronously like hardware drivers */
	{
		struct ib_sge many[5] = {};

		tap(post_send(&c->a, 1, IB_WR_SEND, many, 5) == -EINVAL,
		    "post_send with 5 SGEs on a max_send_sge=4 QP returns -EINVAL");
	}
	/* too long: responder LOC_LEN_ERR, requester REM_INV_REQ_ERR, both to ERR */
	post_recv(&c->b, 13, 0, 100);
	send_simple(&c->a, 24, 200);
	ok = poll1(c->b.cq, &wc, 2000) && wc.status == IB_WC_LOC_LEN_ERR && wc.wr_id == 13;
	tap(ok, "200 B into a 100 B receive: responder IB_WC_LOC_LEN_ERR (got %d)", wc.status);
	ok = poll1(c->a.cq, &wc, 2000) && wc.status == IB_WC_REM_INV_REQ_ERR && wc.wr_id == 24;
	tap(ok, "... requester IB_WC_REM_INV_REQ_ERR (got %d)", wc.status);
	/* posting on an ERR QP completes with FLUSH_ERR */
	ok = !post_recv(&c->b, 14, 0, 100) && poll1(c->b.cq, &wc, 2000) &&
	     wc.status == IB_WC_WR_FLUSH_ERR && wc.wr_id == 14;
	tap(ok, "post_recv on an ERR QP: IB_WC_WR_FLUSH_ERR");
	ok = !send_simple(&c->a, 25, 10) && poll1(c->a.cq, &wc, 2000) &&
	     wc.status == IB_WC_WR_FLUSH_ERR && wc.wr_id == 25;
	tap(ok, "post_send on an ERR QP: IB_WC_WR_FLUSH_ERR");
	pair_down(c);
}

/* rnr_retry 0/3/7 against a receiver with no posted receive (IBA 9.7.5.2.8) */
static void case_rnr(struct ctx *c, u8 rnr_retry)
{
	struct ib_wc wc;
	ktime_t t0;
	s64 us;
	int got;

	/* responder min_rnr_timer 26 = 81.92 ms (before time_scale) */
	if (pair_up(c, 26, rnr_retry)) {
		tap(false, "RNR rnr_retry=%u: set up QP pair", rnr_retry);
		return;
	}
	t0 = ktime_get();
	send_simple(&c->a, 30, 64);
	got = poll1(c->a.cq, &wc, rnr_retry == 7 ? 300 : 3000);
	us = ktime_us_delta(ktime_get(), t0);
	if (rnr_retry == 7) {
		tap(!got, "rnr_retry=7: no completion while starved (%lld us)", us);
		post_recv(&c->b, 31, 0, 4096);
		got = poll1(c->a.cq, &wc, 3000);
		tap(got && wc.status == IB_WC_SUCCESS,
		    "rnr_retry=7: completes once a receive is posted (status %d)", wc.status);
	} else {
		tap(got && wc.status == IB_WC_RNR_RETRY_EXC_ERR,
		    "rnr_retry=%u: IB_WC_RNR_RETRY_EXC_ERR after %lld us (status %d)",
		    rnr_retry, us, got ? wc.status : -1);
		if (got)
			pr_info("softib_rctest: # rnr_retry=%u elapsed_us=%lld\n", rnr_retry, us);
	}
	pair_down(c);
}

static void case_retry_exc(struct ctx *c)
{
	struct ib_wc wc;
	int got;

	if (pair_up(c, 14, 7)) {
		tap(false, "retry-exceeded: set up QP pair");
		return;
	}
	ib_destroy_qp(c->b.qp);
	c->b.qp = NULL;
	send_simple(&c->a, 40, 64);
	got = poll1(c->a.cq, &wc, 5000);
	tap(got && wc.status == IB_WC_RETRY_EXC_ERR,
	    "peer QP destroyed: IB_WC_RETRY_EXC_ERR (status %d)", got ? wc.status : -1);
	pair_down(c);
}

static atomic_t srq_limit_events, last_wqe_events;

static void srq_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		atomic_inc(&srq_limit_events);
}

static void qp_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		atomic_inc(&last_wqe_events);
}

static atomic_t comm_est_events;

static void comm_est_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_COMM_EST)
		atomic_inc(&comm_est_events);
}

/*
 * IBA 11.6.3 (Communication Established): a QP in RTR that receives its first message raises
 * COMM_EST (ib_cm's cue that the RTU was lost), once; a QP in RTS raises none.
 */
static void case_comm_est(struct ctx *c)
{
	struct ib_wc wc;
	int i, ok = 1;

	if (ep_create(c, &c->a) || ep_create(c, &c->b)) {
		tap(false, "COMM_EST: create QPs");
		goto out;
	}
	/* what ib_create_qp would have stored from ib_qp_init_attr.event_handler */
	c->b.qp->event_handler = comm_est_event;
	atomic_set(&comm_est_events, 0);
	if (connect(c, &c->a, c->b.qp->qp_num, 0, 7) ||
	    connect_rtr(c, &c->b, c->a.qp->qp_num, 14)) {
		tap(false, "COMM_EST: connect (b in RTR)");
		goto out;
	}
	for (i = 0; i < 2; i++) {
		post_recv(&c->b, 60 + i, 0, 4096);
		send_simple(&c->a, 70 + i, 64);
		ok = ok && poll1(c->b.cq, &wc, 2000) && wc.status == IB_WC_SUCCESS &&
		     wc.wr_id == 60 + i;
	}
	msleep(100);
	tap(ok, "QP in RTR receives two messages");
	tap(atomic_read(&comm_est_events) == 1,
	    "... and raises IB_EVENT_COMM_EST once, on the first (%d)",
	    atomic_read(&comm_est_events));
	ok = !to_rts(&c->b, 7);
	post_recv(&c->b, 62, 0, 4096);
	send_simple(&c->a, 72, 64);
	ok = ok && poll1(c->b.cq, &wc, 2000) && wc.status == IB_WC_SUCCESS && wc.wr_id == 62;
	msleep(100);
	tap(ok && atomic_read(&comm_est_events) == 1,
	    "in RTS: receives, no further COMM_EST (%d)", atomic_read(&comm_est_events));
out:
	pair_down(c);
}

/*
 * SRQ: receives come from the shared queue, the armed limit fires once
 * (IBA 10.2.9.3), and an SRQ-attached QP moved to ERR reports
 * LAST_WQE_REACHED; a drain WR posted after it completes after every
 * receive CQE of that QP (the ipoib drain rule, docs/softib.md §3.4).
 */
static void case_srq(struct ctx *c)
{
	struct ib_srq_init_attr sa = {
		.event_handler = srq_event,
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ib_qp_attr at = { .qp_state = IB_QPS_ERR };
	struct ib_srq_attr lim = { .srq_limit = 2 };
	struct ib_recv_wr rw = {};
	struct ib_send_wr dw = { .wr_id = 99, .opcode = IB_WR_SEND };
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.event_handler = qp_event,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ib_sge sge;
	struct ib_srq *srq;
	struct ib_wc wc;
	int i, ok, last_id = -1;

	if (ep_create(c, &c->a) || ep_create(c, &c->b)) {
		tap(false, "SRQ: set up");
		goto out;
	}
	srq = ib_create_srq(c->pd, &sa);
	if (IS_ERR(srq)) {
		tap(false, "SRQ: create_srq %ld", PTR_ERR(srq));
		goto out;
	}
	/* replace b's QP by one attached to the SRQ */
	ib_destroy_qp(c->b.qp);
	qa.send_cq = qa.recv_cq = c->b.cq;
	qa.srq = srq;
	c->b.qp = ib_create_qp(c->pd, &qa);
	if (IS_ERR(c->b.qp) || connect(c, &c->a, c->b.qp->qp_num, 0, 7) ||
	    connect(c, &c->b, c->a.qp->qp_num, 14, 7)) {
		tap(false, "SRQ: connect");
		goto out_srq;
	}
	sge.addr = (uintptr_t)c->b.buf;
	sge.length = 4096;
	sge.lkey = c->pd->local_dma_lkey;
	rw.sg_list = &sge;
	rw.num_sge = 1;
	for (i = 0; i < 3; i++) {
		rw.wr_id = 100 + i;
		ib_post_srq_recv(srq, &rw, NULL);
	}
	ib_modify_srq(srq, &lim, IB_SRQ_LIMIT);
	send_simple(&c->a, 50, 64);
	send_simple(&c->a, 51, 64);
	ok = poll1(c->b.cq, &wc, 2000) && wc.status == IB_WC_SUCCESS && wc.wr_id == 100 &&
	     wc.qp == c->b.qp;
	ok = ok && poll1(c->b.cq, &wc, 2000) && wc.wr_id == 101;
	tap(ok, "SRQ: two receives taken from the SRQ in order");
	msleep(100);
	tap(atomic_read(&srq_limit_events) == 1,
	    "SRQ: limit 2 armed, 1 WQE left -> one SRQ_LIMIT_REACHED (%d)",
	    atomic_read(&srq_limit_events));
	while (poll1(c->a.cq, &wc, 100))
		;
	/* more messages in flight, then ERR: LAST_WQE, then a drain WR completes last */
	send_simple(&c->a, 52, 64);
	ib_modify_qp(c->b.qp, &at, IB_QP_STATE);
	for (i = 0; i < 100 && !atomic_read(&last_wqe_events); i++)
		msleep(10);
	tap(atomic_read(&last_wqe_events) == 1, "SRQ QP to ERR: IB_EVENT_QP_LAST_WQE_REACHED");
	ib_post_send(c->b.qp, &dw, NULL);
	while (poll1(c->b.cq, &wc, 500))
		last_id = wc.wr_id;
	tap(last_id == 99, "drain WR's flush CQE is the last CQE of that QP (last wr_id %d)",
	    last_id);
out_srq:
	if (c->b.qp && !IS_ERR(c->b.qp))
		ib_destroy_qp(c->b.qp);
	c->b.qp = NULL;
	ib_destroy_srq(srq);
out:
	pair_down(c);
}

static void case_stream(struct ctx *c)
{
	u64 total = (u64)stream_mb << 20, sent = 0, recvd = 0;
	int posted_s = 0, posted_r = 0, i, err = 0;
	struct ib_wc wc[16];
	ktime_t t0;
	s64 us;

	if (pair_up(c, 14, 7)) {
		tap(false, "stream: set up QP pair");
		return;
	}
	for (i = 0; i < DEPTH; i++, posted_r++)
		post_recv(&c->b, i, MSG, MSG);
	t0 = ktime_get();
	while (recvd < total && !err) {
		int n;

		while (posted_s < DEPTH && sent < total) {
			if (send_simple(&c->a, sent, MSG))
				break;
			posted_s++;
			sent += MSG;
		}
		n = ib_poll_cq(c->a.cq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IB_WC_SUCCESS)
				err = wc[i].status;
			if (wc[i].opcode & IB_WC_RECV) {
				recvd += wc[i].byte_len;
				post_recv(&c->b, 0, MSG, MSG);
			} else {
				posted_s--;
			}
		}
		n = ib_poll_cq(c->b.cq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IB_WC_SUCCESS)
				err = wc[i].status;
			recvd += wc[i].byte_len;
			post_recv(&c->b, 0, MSG, MSG);
		}
		if (ktime_ms_delta(ktime_get(), t0) > 60000)
			err = -ETIMEDOUT;
		cond_resched();
	}
	us = max_t(s64, ktime_us_delta(ktime_get(), t0), 1);
	tap(!err && recvd >= total, "stream %d MiB of 64 KiB SENDs: %lld MB/s (err %d)",
	    stream_mb, div64_s64(recvd, us), err);
	pair_down(c);
}

/* UD QP: RESET -> INIT -> RTR -> RTS with Q_Key qkey */
/*
 * ib_resize_cq (IBA 11.2.6): below the CQEs queued is refused; a resize keeps the queued
 * CQEs in order; the new size holds as many CQEs as it says.
 */
static void case_resize_cq(struct ctx *c)
{
	struct ib_wc wc;
	int err, i, got = 0, missed = 0;
	bool order = true;

	err = pair_up(c, 1, 7);
	for (i = 0; !err && i < 5; i++)
		err = post_recv(&c->b, 100 + i, 0, 4096);
	for (i = 0; !err && i < 2; i++)
		err = send_simple(&c->a, 1 + i, 64);
	/* both delivered, then their ACKs: two send CQEs queued on A's CQ, not polled */
	for (i = 0; !err && i < 2; i++)
		if (!poll1(c->b.cq, &wc, 2000))
			err = -ETIMEDOUT;
	if (!err)
		msleep(500);
	tap(!err && ib_resize_cq(c->a.cq, 1) == -EINVAL, "resize_cq below the 2 queued CQEs -> -EINVAL (err %d)", err);
	err = err ?: ib_resize_cq(c->a.cq, 3);
	for (i = 0; !err && i < 2; i++) {
		if (ib_poll_cq(c->a.cq, 1, &wc) != 1)
			break;
		got++;
		order &= wc.wr_id == (u64)(1 + i) && wc.status == IB_WC_SUCCESS;
	}
	tap(!err && got == 2 && order && c->a.cq->cqe == 3,
	    "resize_cq 256 -> 3 keeps the queued CQEs in order (err %d, got %d, cqe %d)", err, got, c->a.cq->cqe);
	for (i = 0; !err && i < 3; i++)
		err = send_simple(&c->a, 10 + i, 64);
	for (i = 0, got = 0; !err && i < 3; i++)
		got += poll1(c->b.cq, &wc, 2000);
	if (!err)
		msleep(500);
	/* three CQEs in a CQ of 3: no overflow (an overflow raises IB_EVENT_CQ_ERR and drops one) */
	for (i = 0; !err && i < 3; i++) {
		if (!poll1(c->a.cq, &wc, 2000) || wc.wr_id != (u64)(10 + i) || wc.status != IB_WC_SUCCESS)
			missed++;
	}
	err = err ?: ib_resize_cq(c->a.cq, 64);
	tap(!err && got == 3 && !missed && c->a.cq->cqe == 64,
	    "a CQ resized to 3 holds 3 CQEs, then grows to 64 (err %d, missed %d)", err, missed);
	pair_down(c);
}

static int ud_up(struct ep *e, u32 qkey)
{
	struct ib_qp_attr at = { .qp_state = IB_QPS_INIT, .port_num = 1, .qkey = qkey };
	int err;

	err = ib_modify_qp(e->qp, &at, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	at.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(e->qp, &at, IB_QP_STATE);
	if (err)
		return err;
	at.qp_state = IB_QPS_RTS;
	return ib_modify_qp(e->qp, &at, IB_QP_STATE | IB_QP_SQ_PSN);
}

static int ud_send(struct ep *e, struct ib_ah *ah, u32 dqpn, u32 qkey, u64 id, u32 len)
{
	struct ib_sge sge = { .addr = (uintptr_t)e->buf, .length = len,
			      .lkey = e->qp->pd->local_dma_lkey };
	struct ib_ud_wr wr = {
		.wr = { .wr_id = id, .opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
		.ah = ah, .remote_qpn = dqpn, .remote_qkey = qkey,
	};
	const struct ib_send_wr *bad;

	return ib_post_send(e->qp, &wr.wr, &bad);
}

static u32 qkey_viol(struct ctx *c)
{
	struct ib_port_attr pa;

	return ib_query_port(c->ibdev, 1, &pa) ? 0 : pa.qkey_viol_cntr;
}

/*
 * UD work requests the verbs API forbids, with the completions real HCAs give:
 * post_send before RTS fails synchronously; a message longer than the
 * receive buffer (GRH area included) completes the receive WQE with
 * IB_WC_LOC_LEN_ERR (IBA 10.7.3.1 / C10-97) while the sender, which cannot
 * know, gets SUCCESS; a message longer than the 4096 path MTU completes the
 * send with IB_WC_LOC_LEN_ERR and is never sent (IBA 9.7.5.1.5 / C10-26); a
 * Q_Key mismatch is silently dropped and counted (IBA 10.2.5, 9.6.1.5.1).
 * A UD QP stays usable after all of these.
 */
static void case_ud(struct ctx *c)
{
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_cq_init_attr ca = { .cqe = 32 };
	struct rdma_ah_attr aa = {};
	struct ib_ah *ah = NULL;
	struct ep *a = &c->a, *b = &c->b;
	struct ep *e[2] = { a, b };
	const u32 qk = 0x11110000;
	struct ib_wc wc;
	u32 v0;
	int i, ok, got;

	for (i = 0; i < 2; i++) {
		e[i]->buf = kzalloc(2 * MSG, GFP_KERNEL);
		e[i]->cq = e[i]->buf ? ib_create_cq(c->ibdev, NULL, NULL, NULL, &ca) : NULL;
		if (IS_ERR_OR_NULL(e[i]->cq)) {
			e[i]->cq = NULL;
			tap(false, "UD: create CQ");
			goto out;
		}
		qa.send_cq = qa.recv_cq = e[i]->cq;
		e[i]->qp = ib_create_qp(c->pd, &qa);
		if (IS_ERR(e[i]->qp)) {
			e[i]->qp = NULL;
			tap(false, "UD: create QP");
			goto out;
		}
	}
	aa.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&aa, c->lid);
	rdma_ah_set_port_num(&aa, 1);
	ah = rdma_create_ah(c->pd, &aa, 0);
	if (IS_ERR(ah)) {
		ah = NULL;
		tap(false, "UD: create AH");
		goto out;
	}
	{
		struct ib_qp_attr at = { .qp_state = IB_QPS_INIT, .port_num = 1, .qkey = qk };

		ib_modify_qp(a->qp, &at, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY);
		tap(ud_send(a, ah, b->qp->qp_num, qk, 1, 64) == -EINVAL,
		    "UD post_send in INIT (not RTS) returns -EINVAL");
	}
	if (ud_up(a, qk) || ud_up(b, qk)) {
		tap(false, "UD: QPs to RTS");
		goto out;
	}
	/* 200 B into a 40 + 100 B receive: receiver LOC_LEN_ERR, sender SUCCESS */
	post_recv(b, 60, 0, 40 + 100);
	ud_send(a, ah, b->qp->qp_num, qk, 61, 200);
	got = poll1(b->cq, &wc, 2000);
	tap(got && wc.status == IB_WC_LOC_LEN_ERR && wc.wr_id == 60,
	    "UD 200 B into a 140 B receive: receiver IB_WC_LOC_LEN_ERR (got %d)",
	    got ? wc.status : -1);
	got = poll1(a->cq, &wc, 2000);
	tap(got && wc.status == IB_WC_SUCCESS && wc.wr_id == 61,
	    "... sender IB_WC_SUCCESS (UD has no ACK) (got %d)", got ? wc.status : -1);
	/* larger than the 4096 path MTU: the sender's WQE fails, nothing leaves */
	post_recv(b, 62, 0, 8192);
	ud_send(a, ah, b->qp->qp_num, qk, 63, 4097);
	got = poll1(a->cq, &wc, 2000);
	tap(got && wc.status == IB_WC_LOC_LEN_ERR && wc.wr_id == 63,
	    "UD 4097 B send (> 4096 MTU): sender IB_WC_LOC_LEN_ERR (got %d)",
	    got ? wc.status : -1);
	tap(!poll1(b->cq, &wc, 200), "... and nothing reaches the receiver");
	/* Q_Key mismatch: silently dropped at the receiver, counted */
	v0 = qkey_viol(c);
	ud_send(a, ah, b->qp->qp_num, 0x2222, 64, 100);
	got = poll1(a->cq, &wc, 2000);
	ok = got && wc.status == IB_WC_SUCCESS && !poll1(b->cq, &wc, 200) &&
	     qkey_viol(c) == v0 + 1;
	tap(ok, "UD Q_Key mismatch: sender SUCCESS, no receive CQE, qkey_viol_cntr %u -> %u",
	    v0, qkey_viol(c));
	/* the UD QPs still work: the posted 8 KiB receive takes the next message */
	ud_send(a, ah, b->qp->qp_num, qk, 65, 100);
	got = poll1(b->cq, &wc, 2000);
	tap(got && wc.status == IB_WC_SUCCESS && wc.wr_id == 62 && wc.byte_len == 140 &&
	    wc.src_qp == a->qp->qp_num,
	    "UD QPs still usable after the errors: receive len 40 + 100 (status %d len %u)",
	    got ? wc.status : -1, got ? wc.byte_len : 0);
	poll1(a->cq, &wc, 2000);
out:
	if (ah)
		rdma_destroy_ah(ah, 0);
	pair_down(c);
}

/*
 * watch=1: one message in flight at a time, one receive posted for it. While the receiver's
 * host is rx_stop'ed the send meets RNR NAKs forever (rnr_retry 7, IBA 9.7.5.2.8) and neither
 * counter moves; after rx_start the same send completes and the stream goes on.
 */
static struct ctx wctx;
static struct task_struct *watch_task;

static int watch_fn(void *unused)
{
	struct ctx *c = &wctx;
	struct ib_wc wc;
	u64 id = 0;

	while (!kthread_should_stop()) {
		id++;
		if (post_recv(&c->b, id, 0, 4096) || send_simple(&c->a, id, 4096)) {
			WRITE_ONCE(watch_err, watch_err + 1);
			break;
		}
		while (ib_poll_cq(c->a.cq, 1, &wc) != 1) {
			if (kthread_should_stop())
				return 0;
			usleep_range(1000, 2000);
		}
		if (wc.status != IB_WC_SUCCESS || wc.wr_id != id) {
			pr_info("softib_rctest: watch: send %llu: status %d wr_id %llu\n",
				id, wc.status, wc.wr_id);
			WRITE_ONCE(watch_err, watch_err + 1);
			break;
		}
		while (ib_poll_cq(c->b.cq, 1, &wc) == 1)	/* the receive side */
			if (wc.status != IB_WC_SUCCESS || wc.byte_len != 4096)
				WRITE_ONCE(watch_err, watch_err + 1);
		WRITE_ONCE(watch_ok, watch_ok + 1);
		msleep(5);
	}
	/* stopped after an error: wait for rmmod */
	while (!kthread_should_stop())
		msleep(50);
	return 0;
}

/* c->ibdev, c->lid and c->pd are set; on success the stream runs until rctest_exit */
static int watch_start(struct ctx *c)
{
	int err;

	/* responder min_rnr_timer 1 = 10 us: the requester retries every jiffy */
	err = pair_up(c, 1, 7);
	if (err)
		goto out;
	watch_task = kthread_run(watch_fn, NULL, "softib_rctest_watch");
	if (!IS_ERR(watch_task)) {
		pr_info("softib_rctest: watch: QP 0x%x -> QP 0x%x, rnr_retry 7, streaming\n",
			c->a.qp->qp_num, c->b.qp->qp_num);
		return 0;
	}
	err = PTR_ERR(watch_task);
	watch_task = NULL;
out:
	pair_down(c);
	return err;
}

static int __init rctest_init(void)
{
	struct ib_port_attr pa;
	struct ctx c = {};
	int err;

	c.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!c.ibdev) {
		pr_err("softib_rctest: no ib_device %s\n", dev);
		return -ENODEV;
	}
	if (ib_query_port(c.ibdev, 1, &pa)) {
		ib_device_put(c.ibdev);
		return -EIO;
	}
	c.lid = pa.lid;
	c.pd = ib_alloc_pd(c.ibdev, 0);
	if (IS_ERR(c.pd)) {
		ib_device_put(c.ibdev);
		return PTR_ERR(c.pd);
	}
	if (watch) {
		wctx = c;
		err = watch_start(&wctx);
		if (err) {
			pr_err("softib_rctest: watch: setup failed: %d\n", err);
			ib_dealloc_pd(c.pd);
			ib_device_put(c.ibdev);
		}
		return err;
	}
	pr_info("softib_rctest: 1..%d\n", c.ibdev->attrs.max_srq ? 31 : 27);
	case_send(&c);
	case_rnr(&c, 0);
	case_rnr(&c, 3);
	case_rnr(&c, 7);
	case_retry_exc(&c);
	case_ud(&c);
	case_comm_est(&c);
	case_resize_cq(&c);
	if (c.ibdev->attrs.max_srq)
		case_srq(&c);
	case_stream(&c);
	ib_dealloc_pd(c.pd);
	ib_device_put(c.ibdev);
	pr_info("softib_rctest: done %d tests, %d failed\n", tap_n, tap_fail);
	return 0;
}

static void __exit rctest_exit(void)
{
	if (!watch_task)
		return;
	kthread_stop(watch_task);
	pair_down(&wctx);
	ib_dealloc_pd(wctx.pd);
	ib_device_put(wctx.ibdev);
}

module_init(rctest_init);
module_exit(rctest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softib RC verbs test client");
