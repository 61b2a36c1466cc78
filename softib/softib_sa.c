// SPDX-License-Identifier: GPL-2.0
/*
 * softib: the subnet administrator living inside the fabric at SM LID 1.
 * ClassPortInfo Get, PathRecord Get, MCMemberRecord Set/Delete/Get with
 * per-member JoinState (IBA 15.2.5.17).  Records are packed by hand at the
 * IBA byte offsets (docs/softib.md §2.3).
 */
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <rdma/ib_sa.h>
#include "softib.h"

#define SA_STATUS_REQ_INVALID	0x0200	/* ERR_REQ_INVALID << 8 */
#define SA_STATUS_NO_RECORDS	0x0300	/* ERR_NO_RECORDS << 8 */
#define SA_STATUS_UNSUP		0x000c	/* unsupported method/attribute */
#define SA_SEL_EQ		2	/* "exactly" selector */
#define IPOIB_DEF_QKEY		0x0b1b	/* the key OpenSM gives IPoIB groups */
#define PATH_REC_LEN		64
#define MCM_REC_LEN		56

struct sa_member {
	struct list_head node;
	union ib_gid port_gid;
	u8 join_state;
};

struct sa_group {
	struct list_head node;
	union ib_gid mgid;
	u16 mlid, pkey;
	u32 qkey, flow_label;
	u8 mtu, rate, plt, sl, hop_limit, tclass, scope;
	struct list_head members;
};

static LIST_HEAD(groups);	/* under softib_lock */
static u16 next_mlid = SOFTIB_MLID_BASE;
static u8 resp_buf[IB_MGMT_MAD_SIZE];

static struct softib_port *port_by_gid(const union ib_gid *gid)
{
	int h, p;

	if (be64_to_cpu(gid->global.subnet_prefix) != 0xfe80000000000000ULL)
		return NULL;
	for (h = 0; h < softib_hosts; h++) {
		if (!softib_devs[h])
			continue;
		for (p = 1; p <= softib_ports_per_host; p++)
			if (softib_devs[h]->ports[p].guid == gid->global.interface_id)
				return &softib_devs[h]->ports[p];
	}
	return NULL;
}

static u16 sa_path_get(const u8 *req, struct softib_port *sp, u8 *rec, ib_sa_comp_mask comp)
{
	const union ib_gid *dgid = (const void *)(req + 8);
	union ib_gid sgid;
	struct softib_port *dp = port_by_gid(dgid), *src = sp;
	u16 pkey = 0xffff;

	if (!dp)
		return SA_STATUS_NO_RECORDS;
	if (comp & IB_SA_PATH_REC_SGID) {
		memcpy(&sgid, req + 24, 16);
		src = port_by_gid(&sgid);	/* PathRecords are reversible */
		if (!src)
			return SA_STATUS_NO_RECORDS;
	}
	if (comp & IB_SA_PATH_REC_PKEY) {
		pkey = get_unaligned_be16(req + 50);
		if (softib_pkey_find(dp, pkey) < 0 || softib_pkey_find(src, pkey) < 0)
			return SA_STATUS_NO_RECORDS;
	}
	memset(rec, 0, PATH_REC_LEN);
	memcpy(rec, req, 8);				/* ServiceID */
	memcpy(rec + 8, dgid, 16);
	put_unaligned_be64(0xfe80000000000000ULL, rec + 24);
	memcpy(rec + 32, &src->guid, 8);
	put_unaligned_be16(dp->lid, rec + 40);
	put_unaligned_be16(src->lid, rec + 42);
	/* FlowLabel 0, HopLimit 0: no GRH on LID-routed paths (§2.3) */
	rec[48] = 0;					/* TClass */
	rec[49] = 0x80 | 1;				/* Reversible, NumbPath 1 */
	put_unaligned_be16(pkey, rec + 50);
	put_unaligned_be16(0, rec + 52);		/* QoS class, SL 0 */
	rec[54] = SA_SEL_EQ << 6 | IB_MTU_4096;
	rec[55] = SA_SEL_EQ << 6 | IB_RATE_100_GBPS;
	rec[56] = SA_SEL_EQ << 6 | 14;		/* PLT: ib_cm ACK timeout = PLT + 1 */
	rec[57] = 0;					/* Preference */
	return 0;
}

static struct sa_group *group_find(const union ib_gid *mgid)
{
	struct sa_group *g;

	list_for_each_entry(g, &groups, node)
		if (!memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

static struct sa_member *member_find(struct sa_group *g, const union ib_gid *gid)
{
	struct sa_member *m;

	list_for_each_entry(m, &g->members, node)
		if (!memcmp(&m->port_gid, gid, sizeof(*gid)))
			return m;
	return NULL;
}

static void group_free(struct sa_group *g)
{
	struct sa_member *m, *t;

	list_for_each_entry_safe(m, t, &g->members, node) {
		list_del(&m->node);
		kfree(m);
	}
	list_del(&g->node);
	kfree(g);
}

/*
 * JS is the JoinState the response carries: for a join the member's resulting JoinState, the
 * union of all its joins (as OpenSM answers); ib_sa keeps it as the port's membership and
 * leaves only the states it finds there (multicast.c get_leave_state): echoing the request
 * made it forget a SendOnlyFullMember state when a FullMember join followed, so that state
 * was never left.
 */
static void mcm_fill(u8 *rec, struct sa_group *g, const u8 *req, u8 js)
{
	memset(rec, 0, MCM_REC_LEN);
	memcpy(rec, &g->mgid, 16);
	memcpy(rec + 16, req + 16, 16);			/* PortGID echoed */
	put_unaligned_be32(g->qkey, rec + 32);
	put_unaligned_be16(g->mlid, rec + 36);
	rec[38] = SA_SEL_EQ << 6 | g->mtu;
	rec[39] = g->tclass;
	put_unaligned_be16(g->pkey, rec + 40);
	rec[42] = SA_SEL_EQ << 6 | g->rate;
	rec[43] = SA_SEL_EQ << 6 | g->plt;
	put_unaligned_be32((u32)g->sl << 28 | (g->flow_label & 0xfffff) << 8 | g->hop_limit,
			   rec + 44);
	rec[48] = g->scope << 4 | (js & 0xf);
}

static u16 mcm_set(const u8 *req, u8 *rec, ib_sa_comp_mask comp)
{
	const union ib_gid *mgid = (const void *)req;
	const union ib_gid *pgid = (const void *)(req + 16);
	u8 js = req[48] & 0xf;
	struct sa_group *g = group_find(mgid);
	struct sa_member *m;

	if (!(comp & IB_SA_MCMEMBER_REC_MGID) || !(comp & IB_SA_MCMEMBER_REC_PORT_GID) ||
	    !(comp & IB_SA_MCMEMBER_REC_JOIN_STATE) || !js || mgid->raw[0] != 0xff ||
	    !port_by_gid(pgid))
		return SA_STATUS_REQ_INVALID;
	if (g) {
		/* IBA 15.2.5.17: a join must agree with the group's parameters */
		if ((comp & IB_SA_MCMEMBER_REC_QKEY) && get_unaligned_be32(req + 32) != g->qkey)
			return SA_STATUS_REQ_INVALID;
		if ((comp & IB_SA_MCMEMBER_REC_PKEY) &&
		    (get_unaligned_be16(req + 40) & 0x7fff) != (g->pkey & 0x7fff))
			return SA_STATUS_REQ_INVALID;
	} else {
		if (next_mlid >= 0xfffe)
			return SA_STATUS_REQ_INVALID;
		g = kzalloc(sizeof(*g), GFP_ATOMIC);
		if (!g)
			return SA_STATUS_REQ_INVALID;
		INIT_LIST_HEAD(&g->members);
		g->mgid = *mgid;
		g->mlid = next_mlid++;
		g->qkey = (comp & IB_SA_MCMEMBER_REC_QKEY) ? get_unaligned_be32(req + 32) :
							     IPOIB_DEF_QKEY;
		g->pkey = (comp & IB_SA_MCMEMBER_REC_PKEY) ? get_unaligned_be16(req + 40) : 0xffff;
		g->mtu = (comp & IB_SA_MCMEMBER_REC_MTU) ? req[38] & 0x3f : IB_MTU_2048;
		g->rate = (comp & IB_SA_MCMEMBER_REC_RATE) ? req[42] & 0x3f : IB_RATE_10_GBPS;
		g->plt = (comp & IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME) ? req[43] & 0x3f : 14;
		g->tclass = (comp & IB_SA_MCMEMBER_REC_TRAFFIC_CLASS) ? req[39] : 0;
		g->sl = (comp & IB_SA_MCMEMBER_REC_SL) ? req[44] >> 4 : 0;
		g->flow_label = (comp & IB_SA_MCMEMBER_REC_FLOW_LABEL) ?
				(get_unaligned_be32(req + 44) >> 8) & 0xfffff : 0;
		g->hop_limit = (comp & IB_SA_MCMEMBER_REC_HOP_LIMIT) ? req[47] : 0;
		g->scope = mgid->raw[1] & 0xf;
		list_add_tail(&g->node, &groups);
	}
	m = member_find(g, pgid);
	if (!m) {
		m = kzalloc(sizeof(*m), GFP_ATOMIC);
		if (!m) {
			if (list_empty(&g->members))
				group_free(g);
			return SA_STATUS_REQ_INVALID;
		}
		m->port_gid = *pgid;
		list_add_tail(&m->node, &g->members);
	}
	m->join_state |= js;
	mcm_fill(rec, g, req, m->join_state);
	return 0;
}

static u16 mcm_delete(const u8 *req, u8 *rec)
{
	struct sa_group *g = group_find((const void *)req);
	struct sa_member *m = g ? member_find(g, (const void *)(req + 16)) : NULL;

	if (!m)
		return SA_STATUS_REQ_INVALID;
	mcm_fill(rec, g, req, req[48]);
	m->join_state &= ~(req[48] & 0xf);
	if (!m->join_state) {
		list_del(&m->node);
		kfree(m);
	}
	if (list_empty(&g->members))
		group_free(g);	/* last member gone: the MLID is released */
	return 0;
}

static u16 mcm_get(const u8 *req, u8 *rec)
{
	struct sa_group *g = group_find((const void *)req);

	if (!g)
		return SA_STATUS_NO_RECORDS;
	mcm_fill(rec, g, req, req[48]);
	return 0;
}

/* lock held: answer one SA request from port sp */
void softib_sa_handle(struct softib_port *sp, struct softib_swqe *w, const struct ib_mad *req)
{
	const struct ib_sa_mad *rq = (const void *)req;
	struct ib_sa_mad *rs = (void *)resp_buf;
	u8 method = rq->mad_hdr.method;
	u16 attr = be16_to_cpu(rq->mad_hdr.attr_id);
	ib_sa_comp_mask comp = rq->sa_hdr.comp_mask;	/* big-endian bits */
	u16 status = SA_STATUS_UNSUP;
	u16 rec_len = 0;

	softib_count(sp, SOFTIB_CNT_SA_MADS, 1);
	if (rq->mad_hdr.mgmt_class != IB_MGMT_CLASS_SUBN_ADM || (method & IB_MGMT_METHOD_RESP))
		return;		/* not for the SA, or a stray response: dropped */

	memcpy(rs, rq, sizeof(*rs));
	memset(rs->data, 0, sizeof(rs->data));
	rs->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;

	switch (attr) {
	case IB_SA_ATTR_CLASS_PORTINFO:
		if (method == IB_MGMT_METHOD_GET) {
			struct ib_class_port_info *cpi = (void *)rs->data;

			cpi->base_version = IB_MGMT_BASE_VERSION;
			cpi->class_version = IB_SA_CLASS_VERSION;
			ib_set_cpi_resp_time(cpi, 18);
			status = 0;
			rec_len = sizeof(*cpi);
		}
		break;
	case IB_SA_ATTR_PATH_REC:
		if (method == IB_MGMT_METHOD_GET) {
			status = sa_path_get(rq->data, sp, rs->data, comp);
			rec_len = PATH_REC_LEN;
		}
		break;
	case IB_SA_ATTR_MC_MEMBER_REC:
		rec_len = MCM_REC_LEN;
		if (method == IB_MGMT_METHOD_SET) {
			status = mcm_set(rq->data, rs->data, comp);
		} else if (method == IB_SA_METHOD_DELETE) {
			rs->mad_hdr.method = IB_SA_METHOD_DELETE_RESP;
			status = mcm_delete(rq->data, rs->data);
		} else if (method == IB_MGMT_METHOD_GET) {
			status = mcm_get(rq->data, rs->data);
		}
		break;
	}
	if (status) {
		softib_count(sp, SOFTIB_CNT_SA_ERRS, 1);
		memcpy(rs->data, rq->data, sizeof(rs->data));
	}
	rs->mad_hdr.status = cpu_to_be16(status);
	rs->sa_hdr.attr_offset = cpu_to_be16(rec_len / 8);
	softib_deliver_mad(sp, rs);
}

int softib_sa_show(struct seq_file *s)
{
	struct sa_group *g;
	struct sa_member *m;
	unsigned long flags;

	spin_lock_irqsave(&softib_lock, flags);
	list_for_each_entry(g, &groups, node) {
		seq_printf(s, "group %pI6 mlid 0x%04x qkey 0x%08x pkey 0x%04x mtu %u\n",
			   g->mgid.raw, g->mlid, g->qkey, g->pkey, g->mtu);
		list_for_each_entry(m, &g->members, node)
			seq_printf(s, "  member %pI6 join_state 0x%x\n", m->port_gid.raw,
				   m->join_state);
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	return 0;
}

void softib_sa_exit(void)
{
	struct sa_group *g, *t;

	list_for_each_entry_safe(g, t, &groups, node)
		group_free(g);
	next_mlid = SOFTIB_MLID_BASE;
}
