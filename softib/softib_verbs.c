// SPDX-License-Identifier: GPL-2.0
/*
 * softib: device/port queries, PD, MR stubs, address handles, multicast
 * attach and hardware counters; the ib_device_ops table.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "softib.h"

LIST_HEAD(softib_mc_list);

struct softib_pd {
	struct ib_pd ibpd;
};	/* struct softib_mc_attach, under softib_lock */

static int softib_query_device(struct ib_device *ibdev, struct ib_device_attr *a,
			       struct ib_udata *udata)
{
	struct softib_dev *sd = to_sdev(ibdev);

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->fw_ver = 1;
	a->sys_image_guid = sd->node_guid;
	a->max_mr_size = ~0ULL;
	a->page_size_cap = PAGE_SIZE;
	a->vendor_id = 0x0002c9;
	a->vendor_part_id = 0x5eb1;
	a->hw_ver = 1;
	a->max_qp = 65536;
	a->max_qp_wr = SOFTIB_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN | IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_SYS_IMAGE_GUID | IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_BAD_PKEY_CNTR;
	if (sd->srq)
		a->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
	/* IBK_LOCAL_DMA_LKEY: ib_alloc_pd never needs a DMA MR (§1.1) */
	a->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	a->max_send_sge = SOFTIB_MAX_SGE;
	a->max_recv_sge = sd->recv_sge;
	a->max_sge_rd = SOFTIB_MAX_SGE;
	a->max_cq = 65536;
	a->max_cqe = SOFTIB_MAX_CQE;	/* non-SRQ ipoib wants ~33k (§3.7) */
	a->max_mr = 65536;
	a->max_pd = 65536;
	a->max_qp_rd_atom = 0;
	a->max_qp_init_rd_atom = 0;
	a->atomic_cap = IB_ATOMIC_NONE;
	a->max_mcast_grp = 8192;
	a->max_mcast_qp_attach = 1024;
	a->max_total_mcast_qp_attach = 65536;
	a->max_ah = 65536;
	if (sd->srq) {		/* per host, fixed before registration (softib_main.c) */
		a->max_srq = 1024;
		a->max_srq_wr = SOFTIB_MAX_SRQ_WR;
		a->max_srq_sge = sd->recv_sge;
	}
	a->max_pkeys = SOFTIB_MAX_PKEYS;
	a->local_ca_ack_delay = 15;
	return 0;
}

/* gid_alias=H:V: port 1 of host H has a second GID, host V's port 1 GUID (its load value) */
static int softib_gid_count(struct softib_dev *sd, u32 port)
{
	return sd->idx == softib_alias_host && port == 1 ? 2 : 1;
}

static int softib_query_port(struct ib_device *ibdev, u32 port, struct ib_port_attr *a)
{
	struct softib_port *sp = &to_sdev(ibdev)->ports[port];
	unsigned long flags;

	spin_lock_irqsave(&softib_lock, flags);
	a->state = sp->state;
	a->phys_state = sp->state == IB_PORT_ACTIVE ? IB_PORT_PHYS_STATE_LINK_UP :
						      IB_PORT_PHYS_STATE_POLLING;
	a->port_cap_flags = sp->cap_flags;
	spin_unlock_irqrestore(&softib_lock, flags);
	a->max_mtu = IB_MTU_4096;
	a->active_mtu = IB_MTU_4096;
	a->gid_tbl_len = softib_gid_count(to_sdev(ibdev), port);
	a->pkey_tbl_len = SOFTIB_MAX_PKEYS;
	a->max_msg_sz = SOFTIB_MAX_MSG;
	a->bad_pkey_cntr = min_t(u64, atomic64_read(&sp->cnt[SOFTIB_CNT_DROP_PKEY]), 0xffff);
	a->qkey_viol_cntr = min_t(u64, atomic64_read(&sp->cnt[SOFTIB_CNT_DROP_QKEY]), 0xffff);
	a->lid = sp->lid;
	a->sm_lid = SOFTIB_SM_LID;	/* non-zero: ib_sa needs a unicast SM AH (§1.4) */
	a->lmc = 0;
	a->max_vl_num = 1;
	a->sm_sl = 0;
	a->subnet_timeout = 18;
	a->init_type_reply = 0;
	a->active_width = IB_WIDTH_4X;
	a->active_speed = IB_SPEED_EDR;
	/* ib_port_attr.subnet_prefix is CPU order (ib_core's cache uses be64_to_cpu of the GID) */
	a->subnet_prefix = 0xfe80000000000000ULL;
	return 0;
}

static int softib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			      struct ib_port_modify *pm)
{
	struct softib_port *sp = &to_sdev(ibdev)->ports[port];
	unsigned long flags;

	/* ib_cm sets IB_PORT_CM_SUP here; without this op cm_add_one fails (§1.2) */
	spin_lock_irqsave(&softib_lock, flags);
	sp->cap_flags = (sp->cap_flags | pm->set_port_cap_mask) & ~pm->clr_port_cap_mask;
	spin_unlock_irqrestore(&softib_lock, flags);
	return 0;
}

static int softib_get_port_immutable(struct ib_device *ibdev, u32 port,
				     struct ib_port_immutable *im)
{
	/* No IB_SMI: there is no QP0 and ib_mad must not try to open one (§1.3) */
	im->core_cap_flags = RDMA_CORE_CAP_PROT_IB | RDMA_CORE_CAP_IB_MAD |
			     RDMA_CORE_CAP_IB_CM | RDMA_CORE_CAP_IB_SA |
			     RDMA_CORE_CAP_AF_IB;
	im->max_mad_size = IB_MGMT_MAD_SIZE;
	im->gid_tbl_len = softib_gid_count(to_sdev(ibdev), port);
	im->pkey_tbl_len = SOFTIB_MAX_PKEYS;
	return 0;
}

static enum rdma_link_layer softib_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static int softib_query_gid(struct ib_device *ibdev, u32 port, int index, union ib_gid *gid)
{
	if (index < 0 || index >= softib_gid_count(to_sdev(ibdev), port))
		return -EINVAL;
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = index ? cpu_to_be64(SOFTIB_GUID_BASE + ((u64)softib_alias_of << 8) + 1) :
					   to_sdev(ibdev)->ports[port].guid;
	return 0;
}

static int softib_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	struct softib_port *sp = &to_sdev(ibdev)->ports[port];

	if (index >= SOFTIB_MAX_PKEYS)
		return -EINVAL;
	*pkey = index < sp->npkeys ? sp->pkeys[index] : 0;
	return 0;
}

int softib_pkey_find(struct softib_port *p, u16 pkey)
{
	int i;

	for (i = 0; i < p->npkeys; i++)
		if (softib_pkey_match(p->pkeys[i], pkey))
			return i;
	return -1;
}

/* IBA 10.9.3: base P_Keys equal and at least one side a full member. */
bool softib_pkey_match(u16 a, u16 b)
{
	if ((a & 0x7fff) != (b & 0x7fff) || !(a & 0x7fff))
		return false;
	return (a & 0x8000) || (b & 0x8000);
}

static void softib_get_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "1.0.0");
}

static int softib_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int softib_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static struct ib_mr *softib_get_dma_mr(struct ib_pd *pd, int access)
{
	struct ib_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	if (!mr)
		return ERR_PTR(-ENOMEM);
	/* virtual DMA: every key addresses kernel VAs, lkey 0 like local_dma_lkey */
	mr->lkey = 0;
	mr->rkey = 0;
	return mr;
}

static struct ib_mr *softib_reg_user_mr(struct ib_pd *pd, u64 start, u64 len, u64 va,
					int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int softib_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	kfree(mr);
	return 0;
}

/* May run in atomic context (no RDMA_CREATE_AH_SLEEPABLE, §7.5.3). */
static int softib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			    struct ib_udata *udata)
{
	struct softib_ah *ah = to_sah(ibah);

	if (init->ah_attr->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	if (init->ah_attr->port_num < 1 ||
	    init->ah_attr->port_num > softib_ports_per_host)
		return -EINVAL;
	ah->attr = *init->ah_attr;
	ah->attr.grh.sgid_attr = NULL;	/* not referenced after create */
	return 0;
}

static int softib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_sah(ibah)->attr;
	return 0;
}

static int softib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

struct softib_mc_attach {
	struct list_head node;
	union ib_gid mgid;
	u16 mlid;
	struct softib_qp *qp;
};

static int softib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct softib_qp *qp = to_sqp(ibqp);
	struct softib_mc_attach *a, *it;
	unsigned long flags;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	a = kzalloc(sizeof(*a), GFP_ATOMIC);
	if (!a)
		return -ENOMEM;
	a->mgid = *gid;
	a->mlid = lid;
	a->qp = qp;
	spin_lock_irqsave(&softib_lock, flags);
	list_for_each_entry(it, &softib_mc_list, node) {
		if (it->qp == qp && it->mlid == lid && !memcmp(&it->mgid, gid, sizeof(*gid))) {
			spin_unlock_irqrestore(&softib_lock, flags);
			kfree(a);
			return 0;
		}
	}
	list_add_tail(&a->node, &softib_mc_list);
	spin_unlock_irqrestore(&softib_lock, flags);
	return 0;
}

static int softib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct softib_qp *qp = to_sqp(ibqp);
	struct softib_mc_attach *it, *tmp;
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&softib_lock, flags);
	list_for_each_entry_safe(it, tmp, &softib_mc_list, node) {
		if (it->qp == qp && it->mlid == lid && !memcmp(&it->mgid, gid, sizeof(*gid))) {
			list_del(&it->node);
			kfree(it);
			ret = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&softib_lock, flags);
	return ret;
}

/* lock held: drop every attachment of a QP that is being destroyed */
void softib_mcast_detach_all(struct softib_qp *qp)
{
	struct softib_mc_attach *it, *tmp;

	list_for_each_entry_safe(it, tmp, &softib_mc_list, node) {
		if (it->qp == qp) {
			list_del(&it->node);
			kfree(it);
		}
	}
}

/*
 * lock held: deliver a multicast packet to every attached QP with that MLID
 * (and MGID when a GRH is present), on every port, including the sender
 * unless it asked for IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK (§3.1).
 * Returns the number of receivers.
 */
int softib_mcast_deliver(struct softib_qp *src, struct softib_swqe *wqe, const void *payload)
{
	struct softib_mc_attach *it;
	int n = 0;

	list_for_each_entry(it, &softib_mc_list, node) {
		if (it->mlid != wqe->dlid)
			continue;
		if (wqe->grh && memcmp(&it->mgid, &wqe->dgid, sizeof(wqe->dgid)))
			continue;
		if (it->qp == src && (src->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK))
			continue;
		if (softib_deliver_ud(it->qp, src, wqe, payload) == 0)
			n++;
	}
	return n;
}

static const struct rdma_stat_desc softib_stat_descs[SOFTIB_CNT_MAX] = {
	[SOFTIB_CNT_TX_PKTS] = { .name = "tx_packets" },
	[SOFTIB_CNT_TX_BYTES] = { .name = "tx_bytes" },
	[SOFTIB_CNT_RX_PKTS] = { .name = "rx_packets" },
	[SOFTIB_CNT_RX_BYTES] = { .name = "rx_bytes" },
	[SOFTIB_CNT_DROP_NO_QP] = { .name = "drop_no_qp" },
	[SOFTIB_CNT_DROP_QKEY] = { .name = "drop_qkey" },
	[SOFTIB_CNT_DROP_PKEY] = { .name = "drop_pkey" },
	[SOFTIB_CNT_DROP_NO_RWQE] = { .name = "drop_no_rwqe" },
	[SOFTIB_CNT_DROP_LEN] = { .name = "drop_len" },
	[SOFTIB_CNT_DROP_MCAST] = { .name = "drop_mcast_no_member" },
	[SOFTIB_CNT_DROP_FAULT] = { .name = "drop_fault" },
	[SOFTIB_CNT_DROP_PORT_DOWN] = { .name = "drop_port_down" },
	[SOFTIB_CNT_RNR_NAK] = { .name = "rnr_nak" },
	[SOFTIB_CNT_RNR_RETRY_EXC] = { .name = "rnr_retry_exceeded" },
	[SOFTIB_CNT_RETRY_EXC] = { .name = "retry_exceeded" },
	[SOFTIB_CNT_REM_ERR] = { .name = "remote_errors" },
	[SOFTIB_CNT_FLUSH] = { .name = "flushed_wqes" },
	[SOFTIB_CNT_CQ_OVERFLOW] = { .name = "cq_overflow" },
	[SOFTIB_CNT_SA_MADS] = { .name = "sa_mads" },
	[SOFTIB_CNT_SA_ERRS] = { .name = "sa_error_responses" },
	[SOFTIB_CNT_CM_MADS] = { .name = "cm_mads" },
	[SOFTIB_CNT_DELAYED] = { .name = "delayed_fault" },
	[SOFTIB_CNT_UD_RX_SQE] = { .name = "ud_rx_send_queue_stopped" },
	[SOFTIB_CNT_RC_TX_PKTS] = { .name = "rc_tx_packets" },
	[SOFTIB_CNT_RC_TX_BYTES] = { .name = "rc_tx_bytes" },
	[SOFTIB_CNT_RC_RX_PKTS] = { .name = "rc_rx_packets" },
	[SOFTIB_CNT_RC_RX_BYTES] = { .name = "rc_rx_bytes" },
	[SOFTIB_CNT_UD_TX_PKTS] = { .name = "ud_tx_packets" },
	[SOFTIB_CNT_UD_TX_BYTES] = { .name = "ud_tx_bytes" },
	[SOFTIB_CNT_UD_RX_PKTS] = { .name = "ud_rx_packets" },
	[SOFTIB_CNT_UD_RX_BYTES] = { .name = "ud_rx_bytes" },
#define CM_PAIR(i, n) \
	[SOFTIB_CNT_CM_TX_FIRST + (i)] = { .name = "cm_tx_" n }, \
	[SOFTIB_CNT_CM_RX_FIRST + (i)] = { .name = "cm_rx_" n }
	CM_PAIR(0, "req"), CM_PAIR(1, "mra"), CM_PAIR(2, "rej"), CM_PAIR(3, "rep"),
	CM_PAIR(4, "rtu"), CM_PAIR(5, "dreq"), CM_PAIR(6, "drep"), CM_PAIR(7, "sidr_req"),
	CM_PAIR(8, "sidr_rep"), CM_PAIR(9, "other"),
#undef CM_PAIR
};

static struct rdma_hw_stats *softib_alloc_hw_port_stats(struct ib_device *ibdev, u32 port)
{
	return rdma_alloc_hw_stats_struct(softib_stat_descs, SOFTIB_CNT_MAX,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int softib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			       u32 port, int index)
{
	struct softib_port *sp;
	int i;

	if (!port || port > softib_ports_per_host)
		return 0;
	sp = &to_sdev(ibdev)->ports[port];
	for (i = 0; i < SOFTIB_CNT_MAX; i++)
		stats->value[i] = atomic64_read(&sp->cnt[i]);
	return SOFTIB_CNT_MAX;
}

const struct ib_device_ops softib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 1,

	.alloc_hw_port_stats = softib_alloc_hw_port_stats,
	.alloc_pd = softib_alloc_pd,
	.attach_mcast = softib_attach_mcast,
	.create_ah = softib_create_ah,
	.create_cq = softib_create_cq_op,
	.create_qp = softib_create_qp,
	.create_srq = softib_create_srq,
	.dealloc_pd = softib_dealloc_pd,
	.dereg_mr = softib_dereg_mr,
	.destroy_ah = softib_destroy_ah,
	.destroy_cq = softib_destroy_cq,
	.destroy_qp = softib_destroy_qp,
	.destroy_srq = softib_destroy_srq,
	.detach_mcast = softib_detach_mcast,
	.get_dev_fw_str = softib_get_fw_str,
	.get_dma_mr = softib_get_dma_mr,
	.get_hw_stats = softib_get_hw_stats,
	.get_link_layer = softib_get_link_layer,
	.get_port_immutable = softib_get_port_immutable,
	.modify_port = softib_modify_port,
	.modify_qp = softib_modify_qp,
	.modify_srq = softib_modify_srq,
	.poll_cq = softib_poll_cq,
	.post_recv = softib_post_recv,
	.post_send = softib_post_send,
	.post_srq_recv = softib_post_srq_recv,
	.query_ah = softib_query_ah,
	.query_device = softib_query_device,
	.query_gid = softib_query_gid,
	.query_pkey = softib_query_pkey,
	.query_port = softib_query_port,
	.query_qp = softib_query_qp,
	.query_srq = softib_query_srq,
	.reg_user_mr = softib_reg_user_mr,
	.resize_cq = softib_resize_cq,
	.req_notify_cq = softib_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, softib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, softib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, softib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, softib_qp, ibqp),
	/* declared even with srq=0: the core allocates before calling create_srq (§1.1) */
	INIT_RDMA_OBJ_SIZE(ib_srq, softib_srq, ibsrq),
};
