/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_verbs.h - the host's fake of the verbs/skb part of the boundary (kapi_verbs.h,
 * kapi_skb.h): skbs and pages from kapi_kmalloc (so the per-case allocation balance and
 * fault injection apply), a DMA "mapping" that is the CPU address, QPs/SRQs that record
 * what was posted, CQs the test fills. Enough for the rings and the dispatcher to run as
 * they do in the kernel.
 */
#ifndef FAKE_VERBS_H
#define FAKE_VERBS_H

#include "kapi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FAKE_CQ_DEPTH 1024
#define FAKE_POSTED_MAX 1024
#define FAKE_POSTED_SG_MAX 128

struct kapi_cq *fake_cq_new(void) KAPI_NOEXCEPT;
/* the UD QP state kapi_qp_state() reports, and the result of SQE -> RTS (0 or -errno) */
extern int fake_ud_state;
extern int fake_sqe_to_rts_err;
extern int fake_reset_err;
extern kapi_u32 fake_ud_qkey;
void fake_cq_free(struct kapi_cq *cq) KAPI_NOEXCEPT;
void fake_cq_push(struct kapi_cq *cq, const struct kapi_wc *wc) KAPI_NOEXCEPT;
int fake_cq_pending(struct kapi_cq *cq) KAPI_NOEXCEPT;
int fake_cq_poll_calls(struct kapi_cq *cq) KAPI_NOEXCEPT;
int fake_cq_max_poll(struct kapi_cq *cq) KAPI_NOEXCEPT;	/* largest n asked for */

/* A receive queue (QP or SRQ): the receives posted so far, in order, and the HCA's view of
 * them: posted and not yet consumed (fake_rq_outstanding), oldest first. */
struct fake_rq {
	struct kapi_recv posted[FAKE_POSTED_MAX];	/* the first FAKE_POSTED_MAX one-SGE posts */
	struct kapi_recv_sg posted_sg[FAKE_POSTED_SG_MAX];	/* the first multi-SGE posts */
	int nposted;		/* total posted (both kinds) */
	int nposted_sg;
	int post_calls;
	int fail_next_post;	/* the next this-many posts fail at their first WR */
	int partial_next;	/* > 0: the next post takes only this many WRs, then fails (as mlx5) */
	int max_chain;		/* longest chain posted in one call */
	kapi_u64 wr[FAKE_POSTED_MAX];	/* outstanding wr_ids: a ring, [nconsumed, nposted) */
	kapi_u32 cap[FAKE_POSTED_MAX];	/* and the bytes their SGEs hold */
	int nconsumed;
	kapi_u32 max_sge;	/* the QP's max_recv_sge / the SRQ's max_sge; 0: not checked */
	int len_errors;		/* completions turned into LOC_LEN_ERR (len over the SGEs) */
};
/* IB_WC_LOC_LEN_ERR (enum ib_wc_status): what an HCA completes a receive with when the
 * message is longer than its SGEs (IBA 11.4.2.1); the fake does so too. */
#define FAKE_WC_LOC_LEN_ERR 1
int fake_rq_outstanding(const struct fake_rq *q) KAPI_NOEXCEPT;
/* The HCA consumes the oldest outstanding receive: a completion for qp_ctx on cq with
 * status and byte_len (a success longer than the receive's SGEs becomes LOC_LEN_ERR with
 * byte_len 0). 0 when nothing was outstanding. A post of more SGEs than max_sge is refused
 * (-EINVAL, as ib_post_recv's provider check). */
int fake_rq_consume(struct fake_rq *q, struct kapi_cq *cq, struct kapi_ctx *qp_ctx, kapi_u32 status,
		    kapi_u32 len) KAPI_NOEXCEPT;

struct kapi_qp *fake_qp_new(struct kapi_ctx *ctx) KAPI_NOEXCEPT;
void fake_qp_free(struct kapi_qp *qp) KAPI_NOEXCEPT;
struct fake_rq *fake_qp_rq(struct kapi_qp *qp) KAPI_NOEXCEPT;
struct kapi_srq *fake_srq_new(void) KAPI_NOEXCEPT;
void fake_srq_free(struct kapi_srq *srq) KAPI_NOEXCEPT;
struct fake_rq *fake_srq_rq(struct kapi_srq *srq) KAPI_NOEXCEPT;

/* RC QPs (kapi_rc_qp_create): what they were created with, and ERROR as IBA 10.3.1 has it:
 * every outstanding receive of the QP's own queue (none with an SRQ) and every send is
 * completed with a flush on its CQ, in order; a WR posted afterwards is flushed at once. */
struct fake_rc_info {
	struct kapi_cq *cq;
	struct kapi_srq *srq;
	struct kapi_qp_init init;
	int error;
	int defer_recv_flush;	/* set: fake_qp_set_error leaves the receive flushes for later */
	int sends;		/* sends posted (kapi_post_send_rc + kapi_post_drain_wr) */
	kapi_u64 last_send_wr_id;
	kapi_u32 last_send_len;		/* all SGEs together */
	kapi_u32 last_send_nsge;
};
struct fake_rc_info *fake_qp_rc(struct kapi_qp *qp) KAPI_NOEXCEPT;
void fake_qp_set_error(struct kapi_qp *qp) KAPI_NOEXCEPT;
/* The receive queue's flushes of a QP in ERROR, when defer_recv_flush held them back (the
 * provider's responder running after its completer: docs/connected.md §4). */
void fake_qp_flush_recv(struct kapi_qp *qp) KAPI_NOEXCEPT;

long fake_skbs_live(void) KAPI_NOEXCEPT;
void fake_dma_fail_next(int n) KAPI_NOEXCEPT;	/* the next n kapi_dma_map calls fail */
void fake_dma_fail_after(int n) KAPI_NOEXCEPT;	/* n maps (buffers, fragments) succeed, the next fails */
long fake_dma_live(void) KAPI_NOEXCEPT;	/* mappings (buffers and pages) not yet unmapped */
long fake_dma_syncs_cpu(void) KAPI_NOEXCEPT;	/* kapi_dma_sync_for_cpu calls so far */
long fake_dma_syncs_dev(void) KAPI_NOEXCEPT;
kapi_u32 fake_skb_truesize(const struct kapi_skb *skb) KAPI_NOEXCEPT;
kapi_u32 fake_skb_frag_len(const struct kapi_skb *skb, int i) KAPI_NOEXCEPT;
/* ip_summed = CHECKSUM_PARTIAL with csum_offset (as the stack leaves a TCP/UDP skb). */
void fake_skb_set_partial(struct kapi_skb *skb, kapi_u16 csum_offset) KAPI_NOEXCEPT;
void fake_skb_set_cloned(struct kapi_skb *skb) KAPI_NOEXCEPT;	/* its head is shared with a clone */
const kapi_u8 *fake_skb_shared_data(const struct kapi_skb *skb) KAPI_NOEXCEPT;	/* what the clone sees */
long fake_cow_copies(void) KAPI_NOEXCEPT;		/* kapi_skb_cow_head copies so far */
void fake_cow_fail_next(int n) KAPI_NOEXCEPT;		/* the next n copies fail */
void fake_skb_set_csum_start(struct kapi_skb *skb, kapi_u32 start) KAPI_NOEXCEPT;	/* from data */
int fake_skb_partial(const struct kapi_skb *skb) KAPI_NOEXCEPT;
/* Charged to a socket with these facts (KAPI_SKB_SOCK_*; kapi_icmp_skb_local then holds until
 * an orphan), and whether it still is (kapi_skb_orphan, kapi_skb_uncharge release it). */
void fake_skb_set_sock(struct kapi_skb *skb, kapi_u32 flags) KAPI_NOEXCEPT;
int fake_skb_charged(const struct kapi_skb *skb) KAPI_NOEXCEPT;
void fake_csum_help_fail_next(int n) KAPI_NOEXCEPT;	/* the next n kapi_skb_checksum_help fail */
long fake_csum_helped(void) KAPI_NOEXCEPT;		/* kapi_skb_checksum_help successes so far */

/* kapi_msleep: each call moves the fake clock (kapi_now_ms) and fake_slept_ms() by ms and
 * runs the hook (if set), which stands in for what other contexts (NAPI) do meanwhile. */
void fake_msleep_hook(void (*fn)(void *arg), void *arg) KAPI_NOEXCEPT;
kapi_u64 fake_slept_ms(void) KAPI_NOEXCEPT;

/* The netdev's work item: the fake's delayed_work (time does not pass on its own). */
struct fake_work {
	int pending;
	kapi_u64 due_ms;	/* from "now"; 0: queued to run now */
	int mods;
};
struct kapi_netdev *fake_netdev_new(void) KAPI_NOEXCEPT;
void fake_netdev_free(struct kapi_netdev *nd) KAPI_NOEXCEPT;
struct fake_work *fake_netdev_work(struct kapi_netdev *nd) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
