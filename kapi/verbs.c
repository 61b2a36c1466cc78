// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: verbs - PD, CQs that schedule a netdev's NAPI, the UD QP and its state transitions,
 * multicast attach, RC QPs (created here; ib_cm moves them), an SRQ, batched post/poll
 * (one- and multi-SGE receives, RC sends and the drain WR), AHs. DMA mapping is dma.c. QPs and SRQs carry the core's tagged context (completions return it, events.c hands it to the core).
 * One kernel call per function (post and poll take arrays so the hot path crosses the
 * boundary once per batch, of the core's size); no policy.
 */
#include <linux/err.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include "kapi.h"
#include "verbs_priv.h"


/* ---- PD ---- */
struct kapi_pd *kapi_pd_alloc(struct kapi_ib_device *ib)
{
	struct ib_pd *pd = ib_alloc_pd(to_ib(ib), 0);

	return IS_ERR(pd) ? NULL : (struct kapi_pd *)pd;
}

void kapi_pd_free(struct kapi_pd *pd)
{
	ib_dealloc_pd((struct ib_pd *)pd);
}

u32 kapi_pd_lkey(const struct kapi_pd *pd)
{
	return ((const struct ib_pd *)pd)->local_dma_lkey;
}

/* ---- CQ ---- */
static void kapi_cq_comp(struct ib_cq *cq, void *ctx)
{
	kapi_napi_schedule(ctx);
}

kapi_u32 kapi_cq_max_entries(const struct kapi_ib_device *ib)
{
	const struct ib_device *d = (const struct ib_device *)ib;

	return d->attrs.max_cqe > 0 ? (kapi_u32)d->attrs.max_cqe : 0;
}

struct kapi_cq *kapi_cq_create_napi(struct kapi_ib_device *ib, struct kapi_netdev *nd, int entries)
{
	struct ib_cq_init_attr attr = { .cqe = entries };
	struct ib_cq *cq = ib_create_cq(to_ib(ib), kapi_cq_comp, NULL, nd, &attr);

	return IS_ERR(cq) ? NULL : (struct kapi_cq *)cq;
}

int kapi_cq_resize(struct kapi_cq *cq, int entries)
{
	return ib_resize_cq((struct ib_cq *)cq, entries);
}

void kapi_cq_destroy(struct kapi_cq *cq)
{
	ib_destroy_cq((struct ib_cq *)cq);
}

int kapi_cq_moderate(struct kapi_cq *cq, u16 count, u16 usecs)
{
	return rdma_set_cq_moderation((struct ib_cq *)cq, count, usecs);
}

int kapi_cq_arm(struct kapi_cq *cq)
{
	return ib_req_notify_cq((struct ib_cq *)cq, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS);
}

int kapi_cq_poll(struct kapi_cq *cq, struct kapi_wc *out, int n)
{
	struct ib_wc wc[KAPI_WR_BATCH_MAX];
	int i, ret;

	if (n < 0 || n > KAPI_WR_BATCH_MAX)
		return -EINVAL;
	ret = ib_poll_cq((struct ib_cq *)cq, n, wc);
	for (i = 0; i < ret; i++) {
		struct kapi_wc *o = &out[i];

		o->qp_ctx = wc[i].qp ? wc[i].qp->qp_context : NULL;
		o->wr_id = wc[i].wr_id;
		o->status = wc[i].status;
		o->byte_len = wc[i].byte_len;
		o->src_qp = wc[i].src_qp;
		o->slid = wc[i].slid;
		o->vendor_err = wc[i].vendor_err;
		o->grh = !!(wc[i].wc_flags & IB_WC_GRH);
		o->is_recv = !!(wc[i].opcode & IB_WC_RECV);
	}
	return ret;
}

/* ---- UD QP ---- */
struct kapi_qp *kapi_ud_qp_create(struct kapi_pd *pd, struct kapi_cq *send_cq, struct kapi_cq *recv_cq,
				  const struct kapi_qp_init *init)
{
	struct ib_qp_init_attr a = {
		.event_handler = kapi_qp_event,
		.qp_context = init->ctx,
		.send_cq = (struct ib_cq *)send_cq,
		.recv_cq = (struct ib_cq *)recv_cq,
		.cap = { .max_send_wr = init->send_wr, .max_recv_wr = init->recv_wr, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.sq_sig_type = init->signal_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_UD,
	};
	struct ib_qp *qp = ib_create_qp((struct ib_pd *)pd, &a);

	return IS_ERR(qp) ? NULL : (struct kapi_qp *)qp;
}

struct kapi_qp *kapi_rc_qp_create(struct kapi_pd *pd, struct kapi_cq *cq, struct kapi_srq *srq,
				  const struct kapi_qp_init *init)
{
	struct ib_qp_init_attr a = {
		.event_handler = kapi_qp_event,
		.qp_context = init->ctx,
		.send_cq = (struct ib_cq *)cq,
		.recv_cq = (struct ib_cq *)cq,
		.srq = (struct ib_srq *)srq,
		.cap = { .max_send_wr = init->send_wr, .max_recv_wr = srq ? 0 : init->recv_wr,
			 .max_send_sge = init->send_sge ? init->send_sge : 1,
			 .max_recv_sge = srq ? 0 : (init->recv_sge ? init->recv_sge : 1) },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp = ib_create_qp((struct ib_pd *)pd, &a);

	return IS_ERR(qp) ? NULL : (struct kapi_qp *)qp;
}

void kapi_qp_destroy(struct kapi_qp *qp)
{
	ib_destroy_qp((struct ib_qp *)qp);
}

u32 kapi_qp_num(const struct kapi_qp *qp)
{
	return ((const struct ib_qp *)qp)->qp_num;
}

int kapi_ud_qp_to_init(struct kapi_qp *qp, u32 port, u16 pkey_index, u32 qkey)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = pkey_index,
		.port_num = port,
		.qkey = qkey,
	};

	return ib_modify_qp((struct ib_qp *)qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY);
}

int kapi_ud_qp_to_rts(struct kapi_qp *qp)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RTR };
	int ret = ib_modify_qp((struct ib_qp *)qp, &a, IB_QP_STATE);

	if (ret)
		return ret;
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0;
	return ib_modify_qp((struct ib_qp *)qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
}

int kapi_qp_set_qkey(struct kapi_qp *qp, u32 qkey)
{
	struct ib_qp_attr a = { .qkey = qkey };

	return ib_modify_qp((struct ib_qp *)qp, &a, IB_QP_QKEY);
}

int kapi_qp_to_error(struct kapi_qp *qp)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp((struct ib_qp *)qp, &a, IB_QP_STATE);
}

int kapi_qp_to_reset(struct kapi_qp *qp)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RESET };

	return ib_modify_qp((struct ib_qp *)qp, &a, IB_QP_STATE);
}

int kapi_qp_state(struct kapi_qp *qp)
{
	struct ib_qp_attr a = {};
	struct ib_qp_init_attr init = {};
	int ret = ib_query_qp((struct ib_qp *)qp, &a, IB_QP_STATE, &init);

	if (ret)
		return ret;
	switch (a.qp_state) {
	case IB_QPS_RTS: return KAPI_QPS_RTS;
	case IB_QPS_SQE: return KAPI_QPS_SQE;
	case IB_QPS_ERR: return KAPI_QPS_ERR;
	default: return KAPI_QPS_OTHER;
	}
}

int kapi_ud_qp_sqe_to_rts(struct kapi_qp *qp)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RTS, .cur_qp_state = IB_QPS_SQE };

	return ib_modify_qp((struct ib_qp *)qp, &a, IB_QP_STATE | IB_QP_CUR_STATE);
}

int kapi_qp_attach_mcast(struct kapi_qp *qp, const u8 mgid[16], u16 mlid)
{
	union ib_gid g;

	memcpy(g.raw, mgid, 16);
	return ib_attach_mcast((struct ib_qp *)qp, &g, mlid);
}

int kapi_qp_detach_mcast(struct kapi_qp *qp, const u8 mgid[16], u16 mlid)
{
	union ib_gid g;

	memcpy(g.raw, mgid, 16);
	return ib_detach_mcast((struct ib_qp *)qp, &g, mlid);
}

/*
 * n receives as one chain, to the SRQ when srq is set, else to the QP's receive queue.
 * Returns how many were posted: on an error the provider has posted the WRs before *bad
 * (mlx5, rxe: they ring the doorbell for those), so those are the HCA's now.
 */
static int kapi_post_recv_chain(struct ib_qp *qp, struct ib_srq *srq, u32 lkey, const struct kapi_recv *r, int n)
{
	struct ib_sge sge[KAPI_WR_BATCH_MAX];
	struct ib_recv_wr wr[KAPI_WR_BATCH_MAX];
	const struct ib_recv_wr *bad = wr;
	int i, rc;

	if (n <= 0 || n > KAPI_WR_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		sge[i].addr = r[i].addr;
		sge[i].length = r[i].len;
		sge[i].lkey = lkey;
		wr[i].wr_id = r[i].wr_id;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	rc = srq ? ib_post_srq_recv(srq, wr, &bad) : ib_post_recv(qp, wr, &bad);
	if (!rc)
		return n;
	if (bad < wr || bad >= wr + n)
		return 0;	/* not one of ours: assume none went */
	return (int)(bad - wr);
}

int kapi_post_recv(struct kapi_qp *qp, u32 lkey, const struct kapi_recv *r, int n)
{
	return kapi_post_recv_chain((struct ib_qp *)qp, NULL, lkey, r, n);
}

int kapi_post_srq_recv(struct kapi_srq *srq, u32 lkey, const struct kapi_recv *r, int n)
{
	return kapi_post_recv_chain(NULL, (struct ib_srq *)srq, lkey, r, n);
}

/* As kapi_post_recv_chain, with r[i].nsge SGEs per WR. */
static int kapi_post_recv_sg_chain(struct ib_qp *qp, struct ib_srq *srq, u32 lkey, const struct kapi_recv_sg *r, int n)
{
	struct ib_sge sge[KAPI_RECV_SG_BATCH_MAX][KAPI_RECV_SGE_MAX];
	struct ib_recv_wr wr[KAPI_RECV_SG_BATCH_MAX];
	const struct ib_recv_wr *bad = wr;
	int i, rc;
	u32 j;

	/* The order-0 head (kapi_verbs.h): with NET_SKB_PAD added, __netdev_alloc_skb keeps it
	 * and skb_shared_info within one page, and it is not much less. (NET_SKB_PAD is a
	 * max(), not usable in a file-scope static_assert.) */
	BUILD_BUG_ON(KAPI_RECV_HEAD_MAX + NET_SKB_PAD > SKB_WITH_OVERHEAD(PAGE_SIZE));
	BUILD_BUG_ON(KAPI_RECV_HEAD_MAX + NET_SKB_PAD + 64 <= SKB_WITH_OVERHEAD(PAGE_SIZE));
	if (n <= 0 || n > KAPI_RECV_SG_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (r[i].nsge < 1 || r[i].nsge > KAPI_RECV_SGE_MAX)
			return -EINVAL;
		for (j = 0; j < r[i].nsge; j++) {
			sge[i][j].addr = r[i].addr[j];
			sge[i][j].length = r[i].len[j];
			sge[i][j].lkey = lkey;
		}
		wr[i].wr_id = r[i].wr_id;
		wr[i].sg_list = sge[i];
		wr[i].num_sge = r[i].nsge;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	rc = srq ? ib_post_srq_recv(srq, wr, &bad) : ib_post_recv(qp, wr, &bad);
	if (!rc)
		return n;
	if (bad < wr || bad >= wr + n)
		return 0;
	return (int)(bad - wr);
}

int kapi_post_recv_sg(struct kapi_qp *qp, u32 lkey, const struct kapi_recv_sg *r, int n)
{
	return kapi_post_recv_sg_chain((struct ib_qp *)qp, NULL, lkey, r, n);
}

int kapi_post_srq_recv_sg(struct kapi_srq *srq, u32 lkey, const struct kapi_recv_sg *r, int n)
{
	return kapi_post_recv_sg_chain(NULL, (struct ib_srq *)srq, lkey, r, n);
}

int kapi_post_send_rc(struct kapi_qp *qp, u32 lkey, kapi_u64 wr_id, const struct kapi_sge *sg, u32 n)
{
	struct ib_sge sge[KAPI_RC_SEND_SGE_MAX];
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = n,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad;
	u32 i;

	if (n == 0 || n > KAPI_RC_SEND_SGE_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		sge[i].addr = sg[i].addr;
		sge[i].length = sg[i].len;
		sge[i].lkey = lkey;
	}
	return ib_post_send((struct ib_qp *)qp, &wr, &bad);
}

int kapi_post_drain_wr(struct kapi_qp *qp, kapi_u64 wr_id)
{
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad;

	return ib_post_send((struct ib_qp *)qp, &wr, &bad);
}

int kapi_post_send_ud(struct kapi_qp *qp, u32 lkey, const struct kapi_ud_send *s, int n)
{
	struct ib_sge sge[KAPI_WR_BATCH_MAX];
	struct ib_ud_wr wr[KAPI_WR_BATCH_MAX];
	const struct ib_send_wr *bad;
	int i;

	if (n <= 0 || n > KAPI_WR_BATCH_MAX)
		return -EINVAL;
	memset(wr, 0, sizeof(wr[0]) * n);
	for (i = 0; i < n; i++) {
		sge[i].addr = s[i].addr;
		sge[i].length = s[i].len;
		sge[i].lkey = lkey;
		wr[i].wr.wr_id = s[i].wr_id;
		wr[i].wr.sg_list = &sge[i];
		wr[i].wr.num_sge = 1;
		wr[i].wr.opcode = IB_WR_SEND;
		wr[i].wr.send_flags = s[i].signaled ? IB_SEND_SIGNALED : 0;
		wr[i].wr.next = i + 1 < n ? &wr[i + 1].wr : NULL;
		wr[i].ah = (struct ib_ah *)s[i].ah;
		wr[i].remote_qpn = s[i].remote_qpn;
		wr[i].remote_qkey = s[i].remote_qkey;
	}
	return ib_post_send((struct ib_qp *)qp, &wr[0].wr, &bad);
}

/* ---- SRQ ---- */
struct kapi_srq *kapi_srq_create(struct kapi_pd *pd, u32 max_wr, u32 max_sge, u32 limit, struct kapi_ctx *ctx)
{
	struct ib_srq_init_attr a = {
		.event_handler = kapi_srq_event,
		.srq_context = ctx,
		.attr = { .max_wr = max_wr, .max_sge = max_sge, .srq_limit = limit },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq = ib_create_srq((struct ib_pd *)pd, &a);

	return IS_ERR(srq) ? NULL : (struct kapi_srq *)srq;
}

void kapi_srq_destroy(struct kapi_srq *srq)
{
	ib_destroy_srq((struct ib_srq *)srq);
}

int kapi_srq_arm_limit(struct kapi_srq *srq, u32 limit)
{
	struct ib_srq_attr a = { .srq_limit = limit };

	return ib_modify_srq((struct ib_srq *)srq, &a, IB_SRQ_LIMIT);
}

/* ---- AH ---- */
struct kapi_ah *kapi_ah_create_mcast(struct kapi_pd *pdp, u32 port, struct kapi_mcast *mc)
{
	struct ib_pd *pd = (struct ib_pd *)pdp;
	struct ib_sa_multicast *m = (struct ib_sa_multicast *)mc;
	struct rdma_ah_attr attr;
	struct ib_ah *ah;

	if (ib_init_ah_from_mcmember(pd->device, port, &m->rec, NULL, IB_GID_TYPE_IB, &attr))
		return NULL;
	ah = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&attr);
	return IS_ERR(ah) ? NULL : (struct kapi_ah *)ah;
}

struct kapi_ah *kapi_ah_create_path(struct kapi_pd *pdp, u32 port, struct kapi_path *path)
{
	struct ib_pd *pd = (struct ib_pd *)pdp;
	struct rdma_ah_attr attr;
	struct ib_ah *ah;

	if (ib_init_ah_attr_from_path(pd->device, port, (struct sa_path_rec *)path, &attr, NULL))
		return NULL;
	ah = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&attr);
	return IS_ERR(ah) ? NULL : (struct kapi_ah *)ah;
}

void kapi_ah_destroy(struct kapi_ah *ah)
{
	rdma_destroy_ah((struct ib_ah *)ah, RDMA_DESTROY_AH_SLEEPABLE);
}
