// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: the SA client - multicast joins (MCMemberRecord Set) and PathRecord queries.
 * Callbacks go straight to the core with the context it gave; no policy here beyond
 * translating records between ib_sa's layout (big-endian fields) and kapi_mcmember.
 */
#include <linux/slab.h>
#include <rdma/ib_sa.h>
#include "kapi.h"
#include "compat.h"

static struct ib_sa_client kapi_sa_client;

int kapi_sa_register(void)
{
	ib_sa_register_client(&kapi_sa_client);
	return 0;
}

void kapi_sa_unregister(void)
{
	ib_sa_unregister_client(&kapi_sa_client);
}

static int kapi_join_cb(int status, struct ib_sa_multicast *m)
{
	return ipoib_core_join_done(m->context, (struct kapi_mcast *)m, status);
}

struct kapi_mcast *kapi_sa_join(struct kapi_ib_device *ib, u32 port, const struct kapi_mcmember *req,
				int copy_params, struct kapi_ctx *ctx)
{
	struct ib_sa_mcmember_rec rec = {};
	ib_sa_comp_mask mask = IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
			       IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE;
	struct ib_sa_multicast *m;

	memcpy(rec.mgid.raw, req->mgid, 16);
	memcpy(rec.port_gid.raw, req->port_gid, 16);
	rec.pkey = cpu_to_be16(req->pkey);
	rec.join_state = req->join_state;
	if (copy_params) {
		mask |= IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_MTU_SELECTOR | IB_SA_MCMEMBER_REC_MTU |
			IB_SA_MCMEMBER_REC_TRAFFIC_CLASS | IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			IB_SA_MCMEMBER_REC_RATE | IB_SA_MCMEMBER_REC_SL | IB_SA_MCMEMBER_REC_FLOW_LABEL |
			IB_SA_MCMEMBER_REC_HOP_LIMIT;
		rec.qkey = cpu_to_be32(req->qkey);
		rec.mtu_selector = req->mtu_selector;
		rec.mtu = req->mtu;
		rec.traffic_class = req->traffic_class;
		rec.rate_selector = req->rate_selector;
		rec.rate = req->rate;
		rec.sl = req->sl;
		rec.flow_label = cpu_to_be32(req->flow_label);
		rec.hop_limit = req->hop_limit;
	}
	m = ib_sa_join_multicast(&kapi_sa_client, (struct ib_device *)ib, port, &rec, mask, GFP_KERNEL,
				 kapi_join_cb, ctx);
	return IS_ERR(m) ? NULL : (struct kapi_mcast *)m;
}

void kapi_sa_leave(struct kapi_mcast *mc)
{
	ib_sa_free_multicast((struct ib_sa_multicast *)mc);
}

int kapi_sa_mcmember_known(struct kapi_ib_device *ib, u32 port, const u8 mgid[16])
{
	struct ib_sa_mcmember_rec rec;
	union ib_gid g;

	memcpy(g.raw, mgid, 16);
	return ib_sa_get_mcmember_rec((struct ib_device *)ib, port, &g, &rec);
}

void kapi_mcast_rec(const struct kapi_mcast *mc, struct kapi_mcmember *o)
{
	const struct ib_sa_mcmember_rec *r = &((const struct ib_sa_multicast *)mc)->rec;

	memcpy(o->mgid, r->mgid.raw, 16);
	memcpy(o->port_gid, r->port_gid.raw, 16);
	o->qkey = be32_to_cpu(r->qkey);
	o->mlid = be16_to_cpu(r->mlid);
	o->pkey = be16_to_cpu(r->pkey);
	o->mtu = r->mtu;
	o->mtu_selector = r->mtu_selector;
	o->rate = r->rate;
	o->rate_selector = r->rate_selector;
	o->sl = r->sl;
	o->hop_limit = r->hop_limit;
	o->traffic_class = r->traffic_class;
	o->join_state = r->join_state;
	o->flow_label = be32_to_cpu(r->flow_label);
}

static void kapi_path_cb(int status, struct sa_path_rec *resp, int num_prs, void *ctx)
{
	u16 dlid = (!status && resp) ? (u16)be32_to_cpu(sa_path_get_dlid(resp)) : 0;

	ipoib_core_path_done(ctx, status ? status : (resp ? 0 : -EIO), (struct kapi_path *)resp, dlid);
}

/* 6.12: the callback's num_prs is unsigned int (compat.h). */
static void kapi_path_cb_uint(int status, struct sa_path_rec *resp, unsigned int num_prs, void *ctx)
{
	kapi_path_cb(status, resp, (int)num_prs, ctx);
}

int kapi_sa_path_query(struct kapi_ib_device *ib, u32 port, const u8 dgid[16], const u8 sgid[16], u16 pkey,
		       unsigned int timeout_ms, struct kapi_ctx *ctx, void **query)
{
	struct sa_path_rec rec = {};

	memcpy(rec.dgid.raw, dgid, 16);
	memcpy(rec.sgid.raw, sgid, 16);
	rec.pkey = cpu_to_be16(pkey);
	rec.numb_path = 1;
	rec.rec_type = SA_PATH_REC_TYPE_IB;
	return ib_sa_path_rec_get(&kapi_sa_client, (struct ib_device *)ib, port, &rec,
				  IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_NUMB_PATH |
					  IB_SA_PATH_REC_TRAFFIC_CLASS | IB_SA_PATH_REC_PKEY,
				  timeout_ms, GFP_ATOMIC, kapi_sa_path_cb_pick(kapi_path_cb_uint, kapi_path_cb),
				  ctx, (struct ib_sa_query **)query);
}

void kapi_sa_cancel(int id, void *query)
{
	ib_sa_cancel_query(id, query);
}
