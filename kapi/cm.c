// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: the IB connection manager for connected mode (kapi_cm.h). One kernel call per
 * function, no policy: every value a message carries is the core's. The CM event handler
 * flattens struct ib_cm_event and hands it to the core with the id's tagged context.
 */
#include <linux/err.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include "kapi.h"
#include "kapi_cm.h"
#include "netdev_priv.h"

static_assert(KAPI_WC_RETRY_EXC_ERR == IB_WC_RETRY_EXC_ERR);
static_assert(KAPI_WC_RNR_RETRY_EXC_ERR == IB_WC_RNR_RETRY_EXC_ERR);

static struct ib_cm_id *to_id(struct kapi_cm_id *id)
{
	return (struct ib_cm_id *)id;
}

/* ---- events ---- */
static enum kapi_cm_event_kind kapi_cm_kind(enum ib_cm_event_type t)
{
	switch (t) {
	case IB_CM_REQ_RECEIVED: return KAPI_CM_EV_REQ;
	case IB_CM_REP_RECEIVED: return KAPI_CM_EV_REP;
	case IB_CM_RTU_RECEIVED: return KAPI_CM_EV_RTU;
	case IB_CM_USER_ESTABLISHED: return KAPI_CM_EV_USER_ESTABLISHED;
	case IB_CM_REJ_RECEIVED: return KAPI_CM_EV_REJ;
	case IB_CM_MRA_RECEIVED: return KAPI_CM_EV_MRA;
	case IB_CM_DREQ_RECEIVED: return KAPI_CM_EV_DREQ;
	case IB_CM_DREP_RECEIVED: return KAPI_CM_EV_DREP;
	case IB_CM_TIMEWAIT_EXIT: return KAPI_CM_EV_TIMEWAIT_EXIT;
	case IB_CM_REQ_ERROR: return KAPI_CM_EV_REQ_ERROR;
	case IB_CM_REP_ERROR: return KAPI_CM_EV_REP_ERROR;
	case IB_CM_DREQ_ERROR: return KAPI_CM_EV_DREQ_ERROR;
	default: return KAPI_CM_EV_OTHER;
	}
}

static int kapi_cm_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct kapi_cm_event e = { .kind = kapi_cm_kind(ev->event), .priv = ev->private_data };
	struct kapi_ctx *ctx;

	switch (e.kind) {
	case KAPI_CM_EV_REQ:
		e.priv_len = IB_CM_REQ_PRIVATE_DATA_SIZE;
		e.remote_qpn = ev->param.req_rcvd.remote_qpn;
		e.service_id = be64_to_cpu(ev->param.req_rcvd.listen_id->service_id);
		e.port = ev->param.req_rcvd.port;
		e.req_remote_response = ev->param.req_rcvd.remote_cm_response_timeout;
		e.req_local_response = ev->param.req_rcvd.local_cm_response_timeout;
		if (ev->param.req_rcvd.primary_path) {
			memcpy(e.dgid, ev->param.req_rcvd.primary_path->dgid.raw, 16);
			/* core/cm.c cm_format_paths_from_req stored Local ACK Timeout - 1 (if > 0) */
			e.req_local_ack = ev->param.req_rcvd.primary_path->packet_life_time + 1;
			/* cm_format_path_lid_from_req: dlid = the REQ's Primary Local Port LID */
			e.req_lid = be32_to_cpu(sa_path_get_dlid(ev->param.req_rcvd.primary_path));
			e.req_pkey = be16_to_cpu(ev->param.req_rcvd.primary_path->pkey);
		}
		/* id->context is still the listener's (cm_req_handler copies it) */
		ctx = ipoib_core_cm_req(id->context, (struct kapi_cm_id *)id, &e);
		if (ctx) {
			id->context = ctx;
			return 0;
		}
		return 1;	/* nobody owns this id: ib_cm destroys it (ib_cm.h) */
	case KAPI_CM_EV_REP:
		e.priv_len = IB_CM_REP_PRIVATE_DATA_SIZE;
		e.remote_qpn = ev->param.rep_rcvd.remote_qpn;
		break;
	case KAPI_CM_EV_REJ:
		e.priv_len = ev->private_data ? IB_CM_REJ_PRIVATE_DATA_SIZE : 0;
		e.rej_reason = ev->param.rej_rcvd.reason;
		break;
	case KAPI_CM_EV_REQ_ERROR:
	case KAPI_CM_EV_REP_ERROR:
	case KAPI_CM_EV_DREQ_ERROR:
		e.send_status = ev->param.send_status;
		e.priv = NULL;
		break;
	default:
		e.priv = NULL;
		break;
	}
	ipoib_core_cm_event(id->context, &e);
	return 0;
}

/* ---- cm_ids ---- */
struct kapi_cm_id *kapi_cm_id_create(struct kapi_ib_device *ib, struct kapi_ctx *ctx)
{
	struct ib_cm_id *id = ib_create_cm_id((struct ib_device *)ib, kapi_cm_handler, ctx);

	return IS_ERR(id) ? NULL : (struct kapi_cm_id *)id;
}

void kapi_cm_id_destroy(struct kapi_cm_id *id)
{
	ib_destroy_cm_id(to_id(id));
}

int kapi_cm_listen(struct kapi_cm_id *id, kapi_u64 service_id)
{
	return ib_cm_listen(to_id(id), cpu_to_be64(service_id));
}

/* ---- messages ---- */
int kapi_cm_send_req(struct kapi_cm_id *id, const struct kapi_cm_req_args *a)
{
	struct ib_cm_req_param p = {
		.primary_path = (struct sa_path_rec *)a->path,
		.service_id = cpu_to_be64(a->service_id),
		.qp_num = a->qpn,
		.qp_type = IB_QPT_RC,
		.starting_psn = a->psn,
		.private_data = a->priv,
		.private_data_len = a->priv_len,
		.remote_cm_response_timeout = a->response_timeout,
		.local_cm_response_timeout = a->response_timeout,
		.flow_control = 0,
		.retry_count = a->retry_count,
		.rnr_retry_count = a->rnr_retry_count,
		.max_cm_retries = a->max_cm_retries,
		.srq = a->srq,
	};

	return ib_send_cm_req(to_id(id), &p);
}

int kapi_cm_send_rep(struct kapi_cm_id *id, const struct kapi_cm_rep_args *a)
{
	struct ib_cm_rep_param p = {
		.qp_num = a->qpn,
		.starting_psn = a->psn,
		.private_data = a->priv,
		.private_data_len = a->priv_len,
		.flow_control = 0,
		.rnr_retry_count = a->rnr_retry_count,
		.srq = a->srq,
	};

	return ib_send_cm_rep(to_id(id), &p);
}

int kapi_cm_send_rtu(struct kapi_cm_id *id)
{
	return ib_send_cm_rtu(to_id(id), NULL, 0);
}

int kapi_cm_send_rej(struct kapi_cm_id *id, u32 reason, const void *ari, u8 ari_len, const void *priv, u8 priv_len)
{
	return ib_send_cm_rej(to_id(id), reason, (void *)ari, ari_len, priv, priv_len);
}

int kapi_cm_send_dreq(struct kapi_cm_id *id)
{
	return ib_send_cm_dreq(to_id(id), NULL, 0);
}

int kapi_cm_send_drep(struct kapi_cm_id *id)
{
	return ib_send_cm_drep(to_id(id), NULL, 0);
}

int kapi_cm_notify_comm_est(struct kapi_cm_id *id)
{
	return ib_cm_notify(to_id(id), IB_EVENT_COMM_EST);
}

/* ---- RC QP state changes ---- */
int kapi_cm_rts_retry(struct kapi_cm_id *id, struct kapi_cm_qp_retry *out)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RTS };
	int mask = 0;
	int rc = ib_cm_init_qp_attr(to_id(id), &a, &mask);

	if (rc)
		return rc;
	out->timeout = mask & IB_QP_TIMEOUT ? a.timeout : 0;
	out->retry_cnt = mask & IB_QP_RETRY_CNT ? a.retry_cnt : 0;
	out->rnr_retry = mask & IB_QP_RNR_RETRY ? a.rnr_retry : 0;
	return 0;
}

/* the caller's retry attributes replace those ib_cm set (only those it set) */
static void set_rts_retry(struct ib_qp_attr *a, int mask, const struct kapi_cm_qp_retry *r)
{
	if (mask & IB_QP_TIMEOUT)
		a->timeout = r->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = r->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = r->rnr_retry;
}

int kapi_cm_modify_qp(struct kapi_cm_id *id, struct kapi_qp *qp, enum kapi_cm_qp_state state, u8 min_rnr_timer,
		      const struct kapi_cm_qp_retry *rts)
{
	static const enum ib_qp_state to[] = {
		[KAPI_CM_QPS_INIT] = IB_QPS_INIT, [KAPI_CM_QPS_RTR] = IB_QPS_RTR, [KAPI_CM_QPS_RTS] = IB_QPS_RTS,
	};
	struct ib_qp_attr a = {};
	int mask = 0;
	int rc;

	if ((unsigned int)state >= ARRAY_SIZE(to))
		return -EINVAL;
	a.qp_state = to[state];
	rc = ib_cm_init_qp_attr(to_id(id), &a, &mask);
	if (rc)
		return rc;
	if (state == KAPI_CM_QPS_RTR) {
		a.min_rnr_timer = min_rnr_timer;
		mask |= IB_QP_MIN_RNR_TIMER;
	}
	if (state == KAPI_CM_QPS_RTS && rts)
		set_rts_retry(&a, mask, rts);
	return ib_modify_qp((struct ib_qp *)qp, &a, mask);
}

int kapi_rc_qp_to_init(struct kapi_qp *qp, u32 port, u16 pkey_index)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.qp_access_flags = 0,
		.pkey_index = pkey_index,
		.port_num = port,
	};

	return ib_modify_qp((struct ib_qp *)qp, &a, IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT);
}

u32 kapi_cm_random_psn(void)
{
	return get_random_u32() & 0xffffff;
}

kapi_u64 kapi_cm_random_u64(void)
{
	return get_random_u64();
}

void kapi_cm_node_guid(struct kapi_ib_device *ib, u8 out[8])
{
	memcpy(out, &((struct ib_device *)ib)->node_guid, 8);
}

/* ---- path records ---- */
struct kapi_cm_path *kapi_cm_path_save(const struct kapi_path *rec)
{
	return (struct kapi_cm_path *)kmemdup(rec, sizeof(struct sa_path_rec), GFP_KERNEL);
}

struct kapi_cm_path *kapi_cm_path_alloc(void)
{
	return (struct kapi_cm_path *)kmalloc(sizeof(struct sa_path_rec), GFP_KERNEL);
}

void kapi_cm_path_copy(struct kapi_cm_path *dst, const struct kapi_cm_path *src)
{
	memcpy(dst, src, sizeof(struct sa_path_rec));
}

kapi_u8 kapi_cm_path_packet_life(const struct kapi_cm_path *p)
{
	return ((const struct sa_path_rec *)p)->packet_life_time;
}

void kapi_cm_path_free(struct kapi_cm_path *p)
{
	kfree(p);
}

/* ---- work ---- */
struct kapi_wq *kapi_wq_create(const char *name)
{
	return (struct kapi_wq *)alloc_workqueue("%s", WQ_UNBOUND | WQ_MEM_RECLAIM, 0, name);
}

void kapi_wq_destroy(struct kapi_wq *wq)
{
	destroy_workqueue((struct workqueue_struct *)wq);
}

struct kapi_work {
	struct work_struct work;
	struct workqueue_struct *wq;
	void (*fn)(struct kapi_ctx *ctx);
	struct kapi_ctx *ctx;
};

static void kapi_work_run(struct work_struct *w)
{
	struct kapi_work *k = container_of(w, struct kapi_work, work);

	k->fn(k->ctx);
}

struct kapi_work *kapi_work_create(struct kapi_wq *wq, void (*fn)(struct kapi_ctx *ctx), struct kapi_ctx *ctx,
				   unsigned int gfp)
{
	struct kapi_work *k = kzalloc(sizeof(*k), gfp);

	if (!k)
		return NULL;
	INIT_WORK(&k->work, kapi_work_run);
	k->wq = (struct workqueue_struct *)wq;
	k->fn = fn;
	k->ctx = ctx;
	return k;
}

void kapi_work_queue(struct kapi_work *w)
{
	queue_work(w->wq, &w->work);
}

void kapi_work_cancel(struct kapi_work *w)
{
	cancel_work_sync(&w->work);
}

void kapi_work_free(struct kapi_work *w)
{
	kfree(w);
}
