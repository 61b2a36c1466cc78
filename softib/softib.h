/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softib: a software InfiniBand fabric.  N simulated hosts, each an
 * ib_device with IB link-layer ports, joined by an in-memory "wire"
 * (one ordered worker) with a subnet administrator living inside the fabric.
 *
 * Locking model: one fabric-wide spinlock (softib_lock, IRQ-safe) protects
 * every QP, SRQ, CQ ring, the routing tables and the SA.  A message is
 * delivered (receive WQE consumed, payload copied, receive CQE pushed, send
 * CQE pushed) in one critical section, so no CQE can ever trail a later
 * flush or drain CQE (docs/softib.md §7.5.1).  Consumer callbacks (CQ
 * completion handlers, async events) are never called under the lock: they
 * are queued and dispatched by the wire worker (§3.8, §7.5.3).
 */
#ifndef SOFTIB_H
#define SOFTIB_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/platform_device.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>

struct uverbs_attr_bundle;

#define SOFTIB_MAX_HOSTS	128
#define SOFTIB_MAX_PORTS	4
#define SOFTIB_MAX_PKEYS	16
#define SOFTIB_SM_LID		1
#define SOFTIB_FIRST_QPN	0x11
#define SOFTIB_MAX_QPN		0xffffff
#define SOFTIB_MAX_SGE		32
#define SOFTIB_MAX_QP_WR	16384
#define SOFTIB_MAX_CQE		65536
#define SOFTIB_MAX_SRQ_WR	16384
#define SOFTIB_MAX_MSG		(1U << 31)
#define SOFTIB_GUID_BASE	0x0002c90300abc000ULL
#define SOFTIB_MLID_BASE	0xc001

/* CM MAD kinds counted per direction: attributes 0x10..0x18 (IBA 12.6.1), then "other". */
#define SOFTIB_CM_ATTR_FIRST	0x10
#define SOFTIB_CM_KINDS		10

/* Per-port counters, exported through rdma_hw_stats (softib_verbs.c). */
enum softib_cnt {
	SOFTIB_CNT_TX_PKTS,
	SOFTIB_CNT_TX_BYTES,
	SOFTIB_CNT_RX_PKTS,
	SOFTIB_CNT_RX_BYTES,
	SOFTIB_CNT_DROP_NO_QP,		/* unknown DLID / QPN or QP not RTR/RTS/SQD/SQE */
	SOFTIB_CNT_DROP_QKEY,
	SOFTIB_CNT_DROP_PKEY,
	SOFTIB_CNT_DROP_NO_RWQE,	/* UD: no posted receive */
	SOFTIB_CNT_DROP_LEN,		/* UD: message longer than WQE or MTU */
	SOFTIB_CNT_DROP_MCAST,		/* multicast with no attached receiver */
	SOFTIB_CNT_DROP_FAULT,		/* fault knob */
	SOFTIB_CNT_DROP_PORT_DOWN,
	SOFTIB_CNT_RNR_NAK,
	SOFTIB_CNT_RNR_RETRY_EXC,
	SOFTIB_CNT_RETRY_EXC,
	SOFTIB_CNT_REM_ERR,
	SOFTIB_CNT_FLUSH,
	SOFTIB_CNT_CQ_OVERFLOW,
	SOFTIB_CNT_SA_MADS,
	SOFTIB_CNT_SA_ERRS,
	SOFTIB_CNT_CM_MADS,
	SOFTIB_CNT_DELAYED,		/* UD packets / CM MADs held by delay_ud / delay_cm */
	SOFTIB_CNT_UD_RX_SQE,		/* UD receives placed while the QP was in SQD or SQE */
	/*
	 * Per transport, so a test can tell which QP type carried its traffic: RC messages placed
	 * (rx) or sent (tx) on this port, UD messages of UD QPs (GSI MADs excluded), and CM MADs
	 * by attribute (IBA 12.6.1: REQ 0x10 ... SIDR_REP 0x18) and direction: tx when this
	 * port's GSI QP sends one, rx when one is placed into its receive queue.
	 */
	SOFTIB_CNT_RC_TX_PKTS,
	SOFTIB_CNT_RC_TX_BYTES,
	SOFTIB_CNT_RC_RX_PKTS,
	SOFTIB_CNT_RC_RX_BYTES,
	SOFTIB_CNT_UD_TX_PKTS,
	SOFTIB_CNT_UD_TX_BYTES,
	SOFTIB_CNT_UD_RX_PKTS,
	SOFTIB_CNT_UD_RX_BYTES,
	SOFTIB_CNT_CM_TX_FIRST,		/* tx: REQ MRA REJ REP RTU DREQ DREP SIDR_REQ SIDR_REP other */
	SOFTIB_CNT_CM_RX_FIRST = SOFTIB_CNT_CM_TX_FIRST + SOFTIB_CM_KINDS,
	SOFTIB_CNT_MAX = SOFTIB_CNT_CM_RX_FIRST + SOFTIB_CM_KINDS
};

struct softib_dev;

struct softib_port {
	struct softib_dev *sdev;
	u32 num;
	u16 lid;
	__be64 guid;
	enum ib_port_state state;
	u32 cap_flags;
	u16 pkeys[SOFTIB_MAX_PKEYS];
	int npkeys;
	struct softib_qp *gsi;		/* QPN 1 of this port */
	atomic64_t cnt[SOFTIB_CNT_MAX];
};

struct softib_dev {
	struct ib_device ibdev;
	struct platform_device *pdev;
	int idx;
	bool registered;
	__be64 node_guid;
	struct softib_port ports[SOFTIB_MAX_PORTS + 1];	/* 1-based */
	struct xarray qps;		/* qpn -> softib_qp (not GSI) */
	u32 next_qpn;
	struct dentry *dbg;
	/*
	 * SRQ support of this host (srq= / host_srq=): set before ib_register_device, whose
	 * query_device result ib_core caches in ibdev.attrs, and never changed afterwards.
	 */
	bool srq;
	/* receive SGE limit (host_recv_sge=, 1..SOFTIB_MAX_SGE): fixed like srq */
	u32 recv_sge;
	/* one-shot fault knobs, see softib_fault.c; under softib_lock */
	u32 f_drop_ud, f_delay_ud, f_delay_ms;
	u32 f_drop_sa, f_drop_cm;
	u16 f_drop_sa_attr, f_drop_cm_attr;	/* 0 = any attribute */
	u32 f_delay_cm, f_delay_cm_ms;
	u16 f_delay_cm_attr;			/* 0 = any attribute */
	bool f_rx_stop;				/* RC QPs answer every SEND with RNR NAK */
	u32 f_rx_trickle_ms;			/* RC QPs take one SEND per MS, host-wide */
	unsigned long f_rx_trickle_next;	/* jiffies before which every SEND is NAKed */
	u32 f_fail_create_qp;			/* the next N create_qp fail with -ENOMEM */
};

/* A circular queue of fixed-size entries (WQEs). */
struct softib_ring {
	void *buf;
	u32 stride, size, head, count;
};

struct softib_cq {
	struct ib_cq ibcq;
	struct ib_wc *ring;
	u32 size, head, count;
	u8 armed;			/* 0, IB_CQ_NEXT_COMP or IB_CQ_SOLICITED */
	bool notify_queued;
	bool overflow;
	struct list_head notify_node;
};

struct softib_srq {
	struct ib_srq ibsrq;
	struct softib_ring rq;
	u32 max_sge;
	u32 limit;			/* armed when non-zero (IBA 11.2.3.3) */
};

struct softib_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr attr;
};

/* Send WQE: ULP-visible fields plus a snapshot of the UD address. */
struct softib_swqe {
	u64 wr_id;
	enum ib_wr_opcode opcode;
	int send_flags;
	__be32 imm;
	u32 num_sge;
	u32 length;
	/* UD */
	u16 dlid;
	u8 sl;
	bool grh;
	union ib_gid dgid;
	u32 flow_label;
	u8 tclass, hop_limit;
	u32 remote_qpn, remote_qkey;
	u16 pkey_index;
	struct ib_sge sge[];
};

struct softib_rwqe {
	u64 wr_id;
	u32 num_sge;
	struct ib_sge sge[];
};

/* What the RC requester is waiting for (timer_action). */
enum { SOFTIB_WAIT_NONE, SOFTIB_WAIT_RNR, SOFTIB_WAIT_ACK, SOFTIB_WAIT_DELAY };

struct softib_qp {
	struct ib_qp ibqp;
	struct softib_dev *sdev;
	u32 qpn;
	enum ib_qp_state state;
	u8 port;
	u32 qkey;
	u16 pkey_index;
	enum ib_sig_type sq_sig_type;
	u32 create_flags;
	struct softib_ring sq, rq;
	u32 max_send_sge, max_recv_sge, max_inline;
	struct softib_srq *srq;
	struct softib_cq *scq, *rcq;
	/* RC connection state */
	u16 dlid;
	u32 dest_qpn;
	enum ib_mtu path_mtu;
	u8 min_rnr_timer, timeout, retry_cnt, rnr_retry;
	u8 rnr_left, retry_left;
	u32 sq_psn, rq_psn;
	int access;
	u8 max_rd_atomic, max_dest_rd_atomic;
	struct rdma_ah_attr ah_attr;
	/* wire bookkeeping */
	bool on_runlist, dead, comm_est, timed_out, delayed_head;
	bool vanished;			/* fault: invisible to peers */
	int wait;			/* SOFTIB_WAIT_* */
	u32 force_rnr;			/* fault: answer the next N messages with RNR NAK */
	bool force_rnr_forever;		/* fault `rnr QPN forever`: every message, until cleared */
	bool ud_send_err;		/* fault `ud_send_err QPN`: the next UD send fails, QP to SQE */
	bool ud_sqe_err;		/* fault `ud_sqe QPN`: in SQE; the next post completes in error */
	bool modify_err;		/* fault `modify_err QPN`: modifies to RESET..RTS fail (-EIO) */
	u32 trickle_ms;			/* fault `rnr QPN trickle MS`: accept one message per MS */
	unsigned long trickle_next;	/* jiffies before which every message is NAKed */
	struct list_head run_node;
	struct timer_list timer;
};

static inline struct softib_dev *to_sdev(struct ib_device *d)
{
	return container_of(d, struct softib_dev, ibdev);
}
static inline struct softib_qp *to_sqp(struct ib_qp *q)
{
	return container_of(q, struct softib_qp, ibqp);
}
static inline struct softib_cq *to_scq(struct ib_cq *c)
{
	return container_of(c, struct softib_cq, ibcq);
}
static inline struct softib_srq *to_ssrq(struct ib_srq *s)
{
	return container_of(s, struct softib_srq, ibsrq);
}
static inline struct softib_ah *to_sah(struct ib_ah *a)
{
	return container_of(a, struct softib_ah, ibah);
}

static inline void *softib_ring_at(struct softib_ring *r, u32 i)
{
	return r->buf + (size_t)((r->head + i) % r->size) * r->stride;
}
static inline void *softib_ring_tail(struct softib_ring *r)
{
	return softib_ring_at(r, r->count);
}
int softib_ring_init(struct softib_ring *r, u32 size, u32 stride);
void softib_ring_free(struct softib_ring *r);

/* module parameters (softib_main.c) */
extern int softib_hosts, softib_ports_per_host, softib_srq, softib_time_scale;
extern bool softib_retry_immediate;
extern int softib_alias_host, softib_alias_of;	/* gid_alias=H:V, -1 when unset */
extern u16 softib_pkeys[SOFTIB_MAX_PKEYS];
extern int softib_npkeys;

/* fabric (softib_main.c) */
extern spinlock_t softib_lock;
extern struct softib_dev **softib_devs;		/* [softib_hosts] */
struct softib_port *softib_port_by_lid(u16 lid);	/* lock held */
void softib_count(struct softib_port *p, enum softib_cnt c, u64 n);
/* tx (true) or rx of one message of QP type T on port P: the per-transport counters */
void softib_count_msg(struct softib_port *p, enum ib_qp_type t, bool tx, u32 len,
		      const void *mad);
void softib_port_set_state(struct softib_port *p, bool up);
void softib_port_event(struct softib_port *p, enum ib_event_type t);

/* verbs (softib_verbs.c) */
extern const struct ib_device_ops softib_dev_ops;
int softib_pkey_find(struct softib_port *p, u16 pkey);
bool softib_pkey_match(u16 a, u16 b);
void softib_mcast_detach_all(struct softib_qp *qp);		/* lock held */
int softib_mcast_deliver(struct softib_qp *src, struct softib_swqe *wqe,
			 const void *payload);			/* lock held */

/* CQ (softib_cq.c) */
void softib_cq_push(struct softib_cq *cq, const struct ib_wc *wc, bool solicited);
int softib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int softib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct ib_udata *udata);
/*
 * Kernel API difference (docs/build.md "Supported kernels"): since 6.11 ib_device_ops.create_cq
 * receives the whole uverbs attribute bundle (struct uverbs_attr_bundle *) where 6.1 passes
 * its driver udata. softib_create_cq_attrs adapts the bundle; the ops table takes whichever
 * of the two has the type the kernel declares (a third form fails the build on the
 * incompatible pointer). Chosen by type, not LINUX_VERSION_CODE, like kapi/compat.h.
 */
int softib_create_cq_attrs(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs);
#define softib_create_cq_op                                                                  \
	__builtin_choose_expr(__builtin_types_compatible_p(                                   \
				      typeof(((struct ib_device_ops *)0)->create_cq),        \
				      typeof(&softib_create_cq_attrs)),                      \
			      softib_create_cq_attrs, softib_create_cq)
int softib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int softib_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc);
int softib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* QP / SRQ (softib_qp.c) */
int softib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		     struct ib_udata *udata);
int softib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata);
int softib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init);
int softib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int softib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad);
int softib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad);
int softib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		      struct ib_udata *udata);
int softib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask mask, struct ib_udata *udata);
int softib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int softib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int softib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad);
void softib_qp_error(struct softib_qp *qp);		/* lock held */
void softib_pop_send(struct softib_qp *qp, enum ib_wc_status st);	/* lock held */
bool softib_ud_sq_error(struct softib_qp *qp);				/* lock held */
void softib_complete_send(struct softib_qp *qp, enum ib_wc_status st);	/* lock held */
struct softib_rwqe *softib_get_rwqe(struct softib_qp *qp);	/* lock held */
void softib_put_rwqe(struct softib_qp *qp);			/* lock held */
struct softib_qp *softib_qp_lookup(struct softib_port *p, u32 qpn); /* lock held */
void softib_qp_event(struct softib_qp *qp, enum ib_event_type t);	/* lock held */

/* wire (softib_wire.c) */
int softib_wire_init(void);
void softib_wire_exit(void);
void softib_wire_kick(void);
void softib_wire_sync(void);
void softib_qp_schedule(struct softib_qp *qp);		/* lock held */
void softib_qp_timer(struct timer_list *t);
void softib_queue_event(struct ib_event *ev);		/* lock held */
void softib_queue_cq_notify(struct softib_cq *cq);	/* lock held */
void softib_forget_object(void *obj);			/* lock held: drop queued events */
int softib_copy_to_sges(const struct ib_sge *dst, u32 ndst, u32 off,
			const void *src, u32 len);
u32 softib_sge_len(const struct ib_sge *sge, u32 n);
int softib_deliver_ud(struct softib_qp *dq, struct softib_qp *src,
		      struct softib_swqe *wqe, const void *payload);	/* lock held */
void softib_deliver_mad(struct softib_port *dp, const void *mad);	/* lock held */
void softib_ud_unicast(struct softib_qp *src, struct softib_swqe *w,
		       const void *payload);				/* lock held */
unsigned long softib_scaled_jiffies(u64 usec);

/* RC (softib_rc.c) */
void softib_rc_process(struct softib_qp *qp);		/* lock held */

/* SA (softib_sa.c) */
void softib_sa_handle(struct softib_port *p, struct softib_swqe *wqe,
		      const struct ib_mad *req);	/* lock held */
void softib_sa_exit(void);
int softib_sa_show(struct seq_file *m);

/* faults (softib_fault.c) */
int softib_fault_init(void);
void softib_fault_exit(void);
void softib_fault_dev_add(struct softib_dev *sd);
/* lock held; return true when the packet must be dropped */
bool softib_fault_drop_ud(struct softib_port *p);
bool softib_fault_drop_mad(struct softib_port *p, u8 mgmt_class, u16 attr_id);
unsigned int softib_fault_ud_delay_ms(struct softib_port *p);
/* lock held; true when delay_cm took the MAD (it is delivered later, by release_held) */
bool softib_fault_hold_mad(struct softib_port *p, struct softib_swqe *w, const void *mad);
void softib_fault_release_held(void);	/* lock held: deliver held MADs that are due */

#endif
