/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_verbs.h - the shim file kapi/verbs.c: PD, CQs that schedule a netdev's NAPI, QPs and
 * SRQs with tagged contexts, batched post and poll, AHs, DMA of buffers and pages.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_VERBS_H
#define KAPI_VERBS_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_ib_device;
struct kapi_netdev;
struct kapi_skb;
struct kapi_pd;		/* struct ib_pd */
struct kapi_cq;		/* struct ib_cq */
struct kapi_qp;		/* struct ib_qp */
struct kapi_srq;	/* struct ib_srq */
struct kapi_ah;		/* struct ib_ah */
struct kapi_mcast;	/* struct ib_sa_multicast */
struct kapi_path;	/* struct sa_path_rec, valid only during the path callback */
struct kapi_page;	/* struct page, order 0 */

/* The most work requests or completions one post/poll call converts (the shim's stack
 * arrays). The batch size itself is the core's; a larger n is -EINVAL. */
#define KAPI_WR_BATCH_MAX 16

struct kapi_pd *kapi_pd_alloc(struct kapi_ib_device *ib) KAPI_NOEXCEPT;	/* NULL on failure */
void kapi_pd_free(struct kapi_pd *pd) KAPI_NOEXCEPT;
kapi_u32 kapi_pd_lkey(const struct kapi_pd *pd) KAPI_NOEXCEPT;
/* The device's largest CQ (ib_device.attrs.max_cqe; 0 if it reports none). */
kapi_u32 kapi_cq_max_entries(const struct kapi_ib_device *ib) KAPI_NOEXCEPT;
/* A CQ whose completion event schedules nd's NAPI. */
struct kapi_cq *kapi_cq_create_napi(struct kapi_ib_device *ib, struct kapi_netdev *nd, int entries) KAPI_NOEXCEPT;
void kapi_cq_destroy(struct kapi_cq *cq) KAPI_NOEXCEPT;
/* ib_resize_cq: process context; 0 or -errno (the CQ keeps its size and its CQEs on failure). */
int kapi_cq_resize(struct kapi_cq *cq, int entries) KAPI_NOEXCEPT;
/* rdma_set_cq_moderation */
int kapi_cq_moderate(struct kapi_cq *cq, kapi_u16 count, kapi_u16 usecs) KAPI_NOEXCEPT;
/* ib_req_notify_cq(NEXT_COMP | REPORT_MISSED_EVENTS): > 0 means poll again */
int kapi_cq_arm(struct kapi_cq *cq) KAPI_NOEXCEPT;

#define KAPI_WC_SUCCESS 0
#define KAPI_WC_WR_FLUSH_ERR 5	/* enum ib_wc_status (static_checks.c) */
struct kapi_wc {
	struct kapi_ctx *qp_ctx;	/* the context the QP was created with (wc->qp->qp_context) */
	kapi_u64 wr_id;
	kapi_u32 status;	/* KAPI_WC_SUCCESS; KAPI_WC_WR_FLUSH_ERR on flush */
	kapi_u32 byte_len;
	kapi_u32 src_qp;
	kapi_u32 slid;
	kapi_u32 vendor_err;
	kapi_u8 grh;		/* IB_WC_GRH */
	/* opcode & IB_WC_RECV: undefined in an error completion (IBA 11.4.2.1), so nothing
	 * dispatches on it; the wr_id's kind (ipoib_wrid.h) says recv/send/drain. */
	kapi_u8 is_recv;
	kapi_u8 pad[2];
};
/* ib_poll_cq into a kapi_wc array, n <= KAPI_WR_BATCH_MAX; returns the count (< 0 on error). */
int kapi_cq_poll(struct kapi_cq *cq, struct kapi_wc *wc, int n) KAPI_NOEXCEPT;

/* What the core decides about a QP; ctx comes back in every kapi_wc and QP event. */
struct kapi_qp_init {
	struct kapi_ctx *ctx;
	kapi_u32 send_wr;
	kapi_u32 recv_wr;	/* ignored with an SRQ */
	kapi_u32 recv_sge;	/* max_recv_sge, RC only (0: 1); ignored with an SRQ */
	kapi_u32 send_sge;	/* max_send_sge, RC only (0: 1) */
	kapi_u8 signal_all;	/* IB_SIGNAL_ALL_WR, else per request (kapi_ud_send.signaled); UD only */
};
struct kapi_qp *kapi_ud_qp_create(struct kapi_pd *pd, struct kapi_cq *send_cq, struct kapi_cq *recv_cq,
				  const struct kapi_qp_init *init) KAPI_NOEXCEPT;	/* NULL on failure */
/* A connected-mode QP (IB_QPT_RC, IB_SIGNAL_ALL_WR): cq serves both its sends and its
 * receives (docs/connected.md §4: one CQ, so one poll sees a QP's last completions); srq
 * NULL for a QP with its own receive queue. Events -> ipoib_core_qp_event(init->ctx). Its
 * state transitions go through ib_cm (kapi_cm.h), not here. NULL on failure. */
struct kapi_qp *kapi_rc_qp_create(struct kapi_pd *pd, struct kapi_cq *cq, struct kapi_srq *srq,
				  const struct kapi_qp_init *init) KAPI_NOEXCEPT;
void kapi_qp_destroy(struct kapi_qp *qp) KAPI_NOEXCEPT;
kapi_u32 kapi_qp_num(const struct kapi_qp *qp) KAPI_NOEXCEPT;
int kapi_ud_qp_to_init(struct kapi_qp *qp, kapi_u32 port, kapi_u16 pkey_index, kapi_u32 qkey) KAPI_NOEXCEPT;
int kapi_ud_qp_to_rts(struct kapi_qp *qp) KAPI_NOEXCEPT;	/* RTR then RTS, sq_psn 0 */
int kapi_qp_set_qkey(struct kapi_qp *qp, kapi_u32 qkey) KAPI_NOEXCEPT;
int kapi_qp_to_error(struct kapi_qp *qp) KAPI_NOEXCEPT;
/* Any state -> RESET (IBA 10.3.1: the work queues emptied, no completion for what they held). */
int kapi_qp_to_reset(struct kapi_qp *qp) KAPI_NOEXCEPT;
/* The QP's state as ib_query_qp reports it (process context); -errno when the query fails. */
enum kapi_qp_state { KAPI_QPS_RTS, KAPI_QPS_SQE, KAPI_QPS_ERR, KAPI_QPS_OTHER };
int kapi_qp_state(struct kapi_qp *qp) KAPI_NOEXCEPT;
/* SQE -> RTS (IBA 10.3.1: the consumer resumes a send queue stopped by an error). */
int kapi_ud_qp_sqe_to_rts(struct kapi_qp *qp) KAPI_NOEXCEPT;
int kapi_qp_attach_mcast(struct kapi_qp *qp, const kapi_u8 mgid[16], kapi_u16 mlid) KAPI_NOEXCEPT;
int kapi_qp_detach_mcast(struct kapi_qp *qp, const kapi_u8 mgid[16], kapi_u16 mlid) KAPI_NOEXCEPT;

/* A basic SRQ (ib_create_srq): max_wr receives of up to max_sge SGEs (1 <= max_sge <=
 * KAPI_RECV_SGE_MAX); events -> ipoib_core_srq_event(ctx). limit: srq_limit (0: not armed).
 * NULL on failure. */
struct kapi_srq *kapi_srq_create(struct kapi_pd *pd, kapi_u32 max_wr, kapi_u32 max_sge, kapi_u32 limit,
				 struct kapi_ctx *ctx) KAPI_NOEXCEPT;
void kapi_srq_destroy(struct kapi_srq *srq) KAPI_NOEXCEPT;
/* ib_modify_srq(IB_SRQ_LIMIT): arm SRQ_LIMIT_REACHED for when fewer than limit are posted. */
int kapi_srq_arm_limit(struct kapi_srq *srq, kapi_u32 limit) KAPI_NOEXCEPT;

struct kapi_recv {
	kapi_u64 wr_id;
	kapi_u64 addr;
	kapi_u32 len;
};
/* Posts n <= KAPI_WR_BATCH_MAX receives as one chain (lkey = pd's local_dma_lkey). Returns
 * how many were posted, in order: n, or fewer when the provider refused one (the first ones
 * are posted, the rest not); -EINVAL for a bad n. */
int kapi_post_recv(struct kapi_qp *qp, kapi_u32 lkey, const struct kapi_recv *r, int n) KAPI_NOEXCEPT;
int kapi_post_srq_recv(struct kapi_srq *srq, kapi_u32 lkey, const struct kapi_recv *r, int n) KAPI_NOEXCEPT;
/* A receive of several SGEs (connected mode's head + order-0 pages, ipoib_frag.h), all with
 * the same lkey. At most KAPI_RECV_SG_BATCH_MAX per call (the shim converts them on its
 * stack: 4 x 17 SGEs is 1.1 KiB); same return rule as kapi_post_recv. 17: a head of
 * KAPI_RECV_HEAD_MAX plus 16 pages hold the 65524-byte RFC 4755 Receive MTU. */
#define KAPI_RECV_SGE_MAX 17
#define KAPI_RECV_SG_BATCH_MAX 4
/* The largest linear area that kapi_skb_alloc serves without a high-order allocation:
 * SKB_WITH_OVERHEAD(PAGE_SIZE) - NET_SKB_PAD, so __netdev_alloc_skb takes a page fragment
 * (GFP_ATOMIC) or a kmalloc-4k object (GFP_KERNEL), never kmalloc-8k. Checked in verbs.c. */
#define KAPI_RECV_HEAD_MAX 3712
struct kapi_recv_sg {
	kapi_u64 wr_id;
	kapi_u32 nsge;		/* 1..KAPI_RECV_SGE_MAX, else -EINVAL */
	kapi_u64 addr[KAPI_RECV_SGE_MAX];
	kapi_u32 len[KAPI_RECV_SGE_MAX];
};
int kapi_post_recv_sg(struct kapi_qp *qp, kapi_u32 lkey, const struct kapi_recv_sg *r, int n) KAPI_NOEXCEPT;
int kapi_post_srq_recv_sg(struct kapi_srq *srq, kapi_u32 lkey, const struct kapi_recv_sg *r, int n) KAPI_NOEXCEPT;
struct kapi_ud_send {
	kapi_u64 wr_id;
	kapi_u64 addr;
	kapi_u32 len;
	kapi_u32 remote_qpn;
	kapi_u32 remote_qkey;
	kapi_u8 signaled;	/* IB_SEND_SIGNALED */
	struct kapi_ah *ah;
};
/* n <= KAPI_WR_BATCH_MAX, one chain; 0 or -errno (on an error the WRs before the refused
 * one may have been posted: the core posts one at a time). */
int kapi_post_send_ud(struct kapi_qp *qp, kapi_u32 lkey, const struct kapi_ud_send *s, int n) KAPI_NOEXCEPT;

/* RC sends: one signalled IB_WR_SEND gathering n (1 <= n <= KAPI_RC_SEND_SGE_MAX, and <= the
 * QP's send_sge) mapped buffers in order; 0 or -errno. */
struct kapi_sge {
	kapi_u64 addr;
	kapi_u32 len;
};
#define KAPI_RC_SEND_SGE_MAX (KAPI_SKB_MAX_FRAGS + 1)	/* an skb's head and every fragment */
int kapi_post_send_rc(struct kapi_qp *qp, kapi_u32 lkey, kapi_u64 wr_id, const struct kapi_sge *sg,
		      kapi_u32 n) KAPI_NOEXCEPT;
/* The teardown fence's drain WR (docs/connected.md §4): a signalled zero-length IB_WR_SEND,
 * posted on a QP in ERROR, so it completes (flushed) behind every WR before it. 0 or -errno. */
int kapi_post_drain_wr(struct kapi_qp *qp, kapi_u64 wr_id) KAPI_NOEXCEPT;

/* AHs: from a joined group's record, or from a path record (only inside the path callback). */
struct kapi_ah *kapi_ah_create_mcast(struct kapi_pd *pd, kapi_u32 port, struct kapi_mcast *mc) KAPI_NOEXCEPT;
struct kapi_ah *kapi_ah_create_path(struct kapi_pd *pd, kapi_u32 port, struct kapi_path *path) KAPI_NOEXCEPT;
void kapi_ah_destroy(struct kapi_ah *ah) KAPI_NOEXCEPT;	/* sleepable */

/* DMA (ib_dma_*) of a kernel buffer or of a whole order-0 page */
enum kapi_dma_dir { KAPI_DMA_TO_DEVICE = 1, KAPI_DMA_FROM_DEVICE = 2 };
int kapi_dma_map(struct kapi_ib_device *ib, void *cpu, kapi_u32 len, enum kapi_dma_dir dir, kapi_u64 *out) KAPI_NOEXCEPT;
void kapi_dma_unmap(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len, enum kapi_dma_dir dir) KAPI_NOEXCEPT;
int kapi_dma_map_page(struct kapi_ib_device *ib, struct kapi_page *pg, enum kapi_dma_dir dir, kapi_u64 *out) KAPI_NOEXCEPT;
void kapi_dma_unmap_page(struct kapi_ib_device *ib, kapi_u64 addr, enum kapi_dma_dir dir) KAPI_NOEXCEPT;
/* Fragment i of an skb (ib_dma_map_page of its page, offset and size), to the device. */
int kapi_dma_map_frag(struct kapi_ib_device *ib, struct kapi_skb *skb, kapi_u32 i, kapi_u64 *out) KAPI_NOEXCEPT;
void kapi_dma_unmap_frag(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len) KAPI_NOEXCEPT;
/* Ownership of len bytes at a mapped buffer's start (ib_dma_sync_single_for_cpu/_device):
 * the CPU reads a receive in place, then the buffer goes back to the device for a repost. */
void kapi_dma_sync_for_cpu(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len, enum kapi_dma_dir dir) KAPI_NOEXCEPT;
void kapi_dma_sync_for_device(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len, enum kapi_dma_dir dir) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_VERBS_H */
