// SPDX-License-Identifier: GPL-2.0
/* fake_verbs.c - the host fake of the verbs and skb boundary (fake_verbs.h). */
#include <string.h>
#include "fake_verbs.h"

/* ---- skbs: a kapi_kmalloc'ed header + data, so leaks and fault injection are seen ---- */
struct kapi_skb {
	kapi_u8 *buf;
	kapi_u32 size, off, len, truesize;
	int nr_frags;
	struct kapi_page *frag[KAPI_SKB_MAX_FRAGS];
	kapi_u32 frag_len[KAPI_SKB_MAX_FRAGS];
	int partial;			/* CHECKSUM_PARTIAL (fake_skb_set_partial) */
	kapi_u16 csum_offset;
	kapi_u32 csum_start;		/* from data (fake_skb_set_csum_start) */
	kapi_u8 *shared;		/* fake_skb_set_cloned: the head a clone shares (buf until cow) */
	kapi_u32 sock_flags;		/* fake_skb_set_sock: its socket's KAPI_SKB_SOCK_*, 0 none */
	int charged;			/* its socket's send buffer holds it */
};
struct kapi_page {
	kapi_u8 data[KAPI_PAGE_SIZE];
};
static long skbs_live, dma_live;

struct kapi_skb *kapi_skb_alloc(struct kapi_netdev *nd, kapi_u32 size, kapi_u32 headroom, unsigned int gfp)
{
	struct kapi_skb *s = kapi_kmalloc(sizeof(*s), gfp | KAPI_GFP_ZERO);

	if (!s)
		return NULL;
	s->buf = kapi_kmalloc(size + headroom + 64, gfp);
	if (!s->buf) {
		kapi_kfree(s);
		return NULL;
	}
	s->size = size + headroom + 64;
	s->off = headroom + 32;
	s->truesize = s->size;
	skbs_live++;
	return s;
}

void kapi_skb_free(struct kapi_skb *s)
{
	int i;

	for (i = 0; i < s->nr_frags; i++)
		kapi_page_put(s->frag[i]);
	if (s->shared != s->buf)
		kapi_kfree(s->shared);	/* the clone's reference, dropped with ours here */
	kapi_kfree(s->buf);
	kapi_kfree(s);
	skbs_live--;
}

void kapi_skb_consume(struct kapi_skb *s) { kapi_skb_free(s); }
/* Sockets: the facts kapi_skb_sock_flags reports, and the charge orphan/uncharge release (an
 * uncharged skb keeps its socket, an orphaned one loses it). */
void fake_skb_set_sock(struct kapi_skb *s, kapi_u32 flags)
{
	s->sock_flags = flags;
	s->charged = 1;
}
int fake_skb_charged(const struct kapi_skb *s) { return s->charged; }
kapi_u32 kapi_skb_sock_flags(const struct kapi_skb *s) { return s->sock_flags; }
void kapi_skb_orphan(struct kapi_skb *s)
{
	s->sock_flags = 0;
	s->charged = 0;
}
void kapi_skb_uncharge(struct kapi_skb *s) { s->charged = 0; }
int kapi_icmp_skb_local(const struct kapi_skb *s) { return s->sock_flags != 0; }
kapi_u8 *kapi_skb_data(struct kapi_skb *s) { return s->buf + s->off; }
kapi_u32 kapi_skb_len(const struct kapi_skb *s) { return s->len; }
kapi_u8 *kapi_skb_put(struct kapi_skb *s, kapi_u32 len)
{
	kapi_u8 *p = s->buf + s->off + s->len;

	s->len += len;
	return p;
}
void kapi_skb_add_frag(struct kapi_skb *s, int i, struct kapi_page *pg, kapi_u32 off, kapi_u32 len)
{
	s->frag[i] = pg;
	s->frag_len[i] = len;
	s->nr_frags = i + 1;
	s->len += len;
	s->truesize += KAPI_PAGE_SIZE;
}
kapi_u32 kapi_skb_nr_frags(const struct kapi_skb *s) { return s->nr_frags; }
kapi_u32 kapi_skb_headlen(const struct kapi_skb *s)
{
	kapi_u32 l = s->len;
	int i;

	for (i = 0; i < s->nr_frags; i++)
		l -= s->frag_len[i];
	return l;
}
/* As skb_linearize: one linear buffer with the head's bytes then each fragment's. */
int kapi_skb_linearize(struct kapi_skb *s)
{
	kapi_u32 head = kapi_skb_headlen(s), at;
	kapi_u8 *buf = kapi_kmalloc(s->len + 64, KAPI_GFP_ATOMIC);
	int i;

	if (!buf)
		return -KAPI_ENOMEM;
	memcpy(buf + 32, s->buf + s->off, head);
	for (at = head, i = 0; i < s->nr_frags; at += s->frag_len[i], i++) {
		memcpy(buf + 32 + at, s->frag[i]->data, s->frag_len[i]);
		kapi_page_put(s->frag[i]);
	}
	if (s->buf != s->shared)
		kapi_kfree(s->buf);	/* a clone's head stays the clone's (freed with the skb) */
	s->buf = buf;
	s->size = s->len + 64;
	s->off = 32;
	s->nr_frags = 0;
	return 0;
}
kapi_u32 kapi_skb_truesize(const struct kapi_skb *s) { return s->truesize; }
kapi_u32 fake_skb_truesize(const struct kapi_skb *s) { return s->truesize; }
kapi_u32 kapi_skb_frag_len(const struct kapi_skb *s, kapi_u32 i) { return s->frag_len[i]; }
/* Checksum state: what the stack would have set, and skb_checksum_help as a flag flip. */
static int csum_help_fail_next;
static long csum_helped;
void fake_skb_set_partial(struct kapi_skb *s, kapi_u16 csum_offset)
{
	s->partial = 1;
	s->csum_offset = csum_offset;
}
int fake_skb_partial(const struct kapi_skb *s) { return s->partial; }
void fake_skb_set_csum_start(struct kapi_skb *s, kapi_u32 start) { s->csum_start = start; }
kapi_u32 kapi_skb_csum_start(const struct kapi_skb *s) { return s->csum_start; }
void fake_csum_help_fail_next(int n) { csum_help_fail_next = n; }
long fake_csum_helped(void) { return csum_helped; }
int kapi_skb_csum_partial(const struct kapi_skb *s, kapi_u16 *csum_offset)
{
	if (!s->partial)
		return 0;
	*csum_offset = s->csum_offset;
	return 1;
}
int kapi_skb_checksum_help(struct kapi_skb *s)
{
	if (csum_help_fail_next > 0) {
		csum_help_fail_next--;
		return -KAPI_ENOMEM;
	}
	s->partial = 0;
	csum_helped++;
	return 0;
}
/* A clone (a tap, tc mirred) shares the head: until kapi_skb_cow_head gives the skb its own,
 * a write through kapi_skb_data lands in what the clone sees (fake_skb_shared_data). */
static long cow_copies;
static int cow_fail_next;
void fake_skb_set_cloned(struct kapi_skb *s) { s->shared = s->buf; }
const kapi_u8 *fake_skb_shared_data(const struct kapi_skb *s) { return s->shared + s->off; }
long fake_cow_copies(void) { return cow_copies; }
void fake_cow_fail_next(int n) { cow_fail_next = n; }
int kapi_skb_cow_head(struct kapi_skb *s)
{
	kapi_u8 *buf;

	if (!s->shared || s->shared != s->buf)
		return 0;	/* not cloned, or copied already */
	if (cow_fail_next > 0) {
		cow_fail_next--;
		return -KAPI_ENOMEM;
	}
	buf = kapi_kmalloc(s->size, KAPI_GFP_ATOMIC);
	if (!buf)
		return -KAPI_ENOMEM;
	memcpy(buf, s->buf, s->size);
	s->buf = buf;	/* shared keeps the clone's copy */
	cow_copies++;
	return 0;
}
kapi_u32 fake_skb_frag_len(const struct kapi_skb *s, int i) { return s->frag_len[i]; }
long fake_skbs_live(void) { return skbs_live; }

struct kapi_page *kapi_page_alloc(unsigned int gfp) { return kapi_kmalloc(sizeof(struct kapi_page), gfp); }
void kapi_page_put(struct kapi_page *pg) { kapi_kfree(pg); }
kapi_u8 *kapi_page_address(struct kapi_page *pg) { return pg->data; }

/* ---- DMA: identity, counted ---- */
static int dma_fail_next, dma_fail_after = -1;
void fake_dma_fail_next(int n) { dma_fail_next = n; }
void fake_dma_fail_after(int n) { dma_fail_after = n; }
/* Buffer and fragment maps: the next dma_fail_next fail, or the one after dma_fail_after. */
static int dma_map_fails(void)
{
	if (dma_fail_after == 0) {
		dma_fail_after = -1;
		return 1;
	}
	if (dma_fail_after > 0)
		dma_fail_after--;
	if (dma_fail_next > 0) {
		dma_fail_next--;
		return 1;
	}
	return 0;
}
int kapi_dma_map(struct kapi_ib_device *ib, void *cpu, kapi_u32 len, enum kapi_dma_dir dir, kapi_u64 *out)
{
	if (dma_map_fails())
		return -12;	/* -ENOMEM, as ib_dma_mapping_error is turned into by the shim */
	*out = (kapi_u64)(unsigned long)cpu;
	dma_live++;
	return 0;
}
void kapi_dma_unmap(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len, enum kapi_dma_dir dir) { dma_live--; }
int kapi_dma_map_page(struct kapi_ib_device *ib, struct kapi_page *pg, enum kapi_dma_dir dir, kapi_u64 *out)
{
	*out = (kapi_u64)(unsigned long)pg->data;
	dma_live++;
	return 0;
}
void kapi_dma_unmap_page(struct kapi_ib_device *ib, kapi_u64 addr, enum kapi_dma_dir dir) { dma_live--; }
int kapi_dma_map_frag(struct kapi_ib_device *ib, struct kapi_skb *s, kapi_u32 i, kapi_u64 *out)
{
	if (dma_map_fails())
		return -12;
	*out = (kapi_u64)(unsigned long)s->frag[i]->data;
	dma_live++;
	return 0;
}
void kapi_dma_unmap_frag(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len) { dma_live--; }
long fake_dma_live(void) { return dma_live; }
/* Syncs (identity mapping: nothing to do), counted so a test sees the copy path pair them. */
static long dma_syncs_cpu, dma_syncs_dev;
void kapi_dma_sync_for_cpu(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len, enum kapi_dma_dir dir) { dma_syncs_cpu++; }
void kapi_dma_sync_for_device(struct kapi_ib_device *ib, kapi_u64 addr, kapi_u32 len, enum kapi_dma_dir dir) { dma_syncs_dev++; }
long fake_dma_syncs_cpu(void) { return dma_syncs_cpu; }
long fake_dma_syncs_dev(void) { return dma_syncs_dev; }

/* ---- QPs, SRQs: record posted receives ---- */
struct kapi_qp {
	struct kapi_ctx *ctx;
	struct fake_rq rq;
	struct fake_rc_info rc;
};
struct kapi_srq {
	struct fake_rq rq;
};

static void cq_push_wc(struct kapi_cq *cq, struct kapi_ctx *ctx, kapi_u64 wr_id, kapi_u32 status, kapi_u32 len);

/* How many of n WRs this post takes (the injected refusals), counted as one call. */
static int rq_take(struct fake_rq *q, int n)
{
	int take = n;

	q->post_calls++;
	if (q->fail_next_post) {
		q->fail_next_post--;
		take = 0;
	} else if (q->partial_next > 0 && q->partial_next < n) {
		take = q->partial_next;
		q->partial_next = 0;
	}
	if (take > q->max_chain)
		q->max_chain = take;
	return take;
}

static void rq_note(struct fake_rq *q, kapi_u64 wr_id, kapi_u32 cap)
{
	q->wr[q->nposted % FAKE_POSTED_MAX] = wr_id;
	q->cap[q->nposted % FAKE_POSTED_MAX] = cap;
	q->nposted++;
}

/* A post to an RC QP in ERROR is flushed at once (IBA 10.8.3.3, 11.4.1.1). */
static void rq_flush_if_error(struct kapi_qp *qp)
{
	if (qp && qp->rc.error && !qp->rc.defer_recv_flush)
		while (fake_rq_consume(&qp->rq, qp->rc.cq, qp->ctx, KAPI_WC_WR_FLUSH_ERR, 0))
			;
}

static int rq_post(struct fake_rq *q, const struct kapi_recv *r, int n)
{
	int i;

	if (n <= 0 || n > KAPI_WR_BATCH_MAX)
		return -KAPI_EINVAL;	/* as the shim */
	int take = rq_take(q, n);

	for (i = 0; i < take; i++) {
		if (q->nposted < FAKE_POSTED_MAX)
			q->posted[q->nposted] = r[i];
		rq_note(q, r[i].wr_id, r[i].len);
	}
	return take;	/* as the shim: how many were posted */
}

static int rq_post_sg(struct fake_rq *q, const struct kapi_recv_sg *r, int n)
{
	int i;

	if (n <= 0 || n > KAPI_RECV_SG_BATCH_MAX)
		return -KAPI_EINVAL;	/* as the shim */
	for (i = 0; i < n; i++)
		if (r[i].nsge < 1 || r[i].nsge > KAPI_RECV_SGE_MAX || (q->max_sge && r[i].nsge > q->max_sge))
			return -KAPI_EINVAL;
	int take = rq_take(q, n);

	for (i = 0; i < take; i++) {
		kapi_u32 cap = 0, j;

		for (j = 0; j < r[i].nsge; j++)
			cap += r[i].len[j];
		if (q->nposted_sg < FAKE_POSTED_SG_MAX)
			q->posted_sg[q->nposted_sg] = r[i];
		q->nposted_sg++;
		rq_note(q, r[i].wr_id, cap);
	}
	return take;
}

int fake_rq_outstanding(const struct fake_rq *q) { return q->nposted - q->nconsumed; }

int fake_rq_consume(struct fake_rq *q, struct kapi_cq *cq, struct kapi_ctx *qp_ctx, kapi_u32 status, kapi_u32 len)
{
	int at = q->nconsumed % FAKE_POSTED_MAX;

	if (q->nconsumed == q->nposted)
		return 0;
	q->nconsumed++;
	if (status == KAPI_WC_SUCCESS && len > q->cap[at]) {
		status = FAKE_WC_LOC_LEN_ERR;
		len = 0;
		q->len_errors++;
	}
	cq_push_wc(cq, qp_ctx, q->wr[at], status, len);
	return 1;
}

struct kapi_qp *fake_qp_new(struct kapi_ctx *ctx)
{
	struct kapi_qp *qp = kapi_kmalloc(sizeof(*qp), KAPI_GFP_KERNEL | KAPI_GFP_ZERO);

	if (qp)
		qp->ctx = ctx;
	return qp;
}
void fake_qp_free(struct kapi_qp *qp) { kapi_kfree(qp); }
struct fake_rq *fake_qp_rq(struct kapi_qp *qp) { return &qp->rq; }
struct kapi_srq *fake_srq_new(void) { return kapi_kmalloc(sizeof(struct kapi_srq), KAPI_GFP_KERNEL | KAPI_GFP_ZERO); }
void fake_srq_free(struct kapi_srq *srq) { kapi_kfree(srq); }
struct fake_rq *fake_srq_rq(struct kapi_srq *srq) { return &srq->rq; }

int kapi_post_recv(struct kapi_qp *qp, kapi_u32 lkey, const struct kapi_recv *r, int n)
{
	int took = rq_post(&qp->rq, r, n);

	rq_flush_if_error(qp);
	return took;
}
int kapi_post_srq_recv(struct kapi_srq *srq, kapi_u32 lkey, const struct kapi_recv *r, int n)
{
	return rq_post(&srq->rq, r, n);
}
int kapi_post_recv_sg(struct kapi_qp *qp, kapi_u32 lkey, const struct kapi_recv_sg *r, int n)
{
	int took = rq_post_sg(&qp->rq, r, n);

	rq_flush_if_error(qp);
	return took;
}
int kapi_post_srq_recv_sg(struct kapi_srq *srq, kapi_u32 lkey, const struct kapi_recv_sg *r, int n)
{
	return rq_post_sg(&srq->rq, r, n);
}

/* ---- RC QPs ---- */
struct kapi_qp *kapi_rc_qp_create(struct kapi_pd *pd, struct kapi_cq *cq, struct kapi_srq *srq,
				  const struct kapi_qp_init *init)
{
	struct kapi_qp *qp = fake_qp_new(init->ctx);

	if (qp) {
		qp->rc.cq = cq;
		qp->rc.srq = srq;
		qp->rc.init = *init;
		if (!srq)
			qp->rq.max_sge = init->recv_sge ? init->recv_sge : 1;
	}
	return qp;
}
struct fake_rc_info *fake_qp_rc(struct kapi_qp *qp) { return &qp->rc; }

void fake_qp_set_error(struct kapi_qp *qp)
{
	qp->rc.error = 1;
	if (!qp->rc.srq)
		rq_flush_if_error(qp);
}

void fake_qp_flush_recv(struct kapi_qp *qp)
{
	qp->rc.defer_recv_flush = 0;
	if (!qp->rc.srq)
		rq_flush_if_error(qp);
}

static int rc_send(struct kapi_qp *qp, kapi_u64 wr_id, kapi_u32 len)
{
	qp->rc.sends++;
	qp->rc.last_send_wr_id = wr_id;
	qp->rc.last_send_len = len;
	if (qp->rc.error)
		cq_push_wc(qp->rc.cq, qp->ctx, wr_id, KAPI_WC_WR_FLUSH_ERR, 0);
	return 0;
}
int kapi_post_send_rc(struct kapi_qp *qp, kapi_u32 lkey, kapi_u64 wr_id, const struct kapi_sge *sg, kapi_u32 n)
{
	kapi_u32 len = 0, i;

	if (n == 0 || n > KAPI_RC_SEND_SGE_MAX || n > (qp->rc.init.send_sge ? qp->rc.init.send_sge : 1u))
		return -KAPI_EINVAL;
	for (i = 0; i < n; i++)
		len += sg[i].len;
	qp->rc.last_send_nsge = n;
	return rc_send(qp, wr_id, len);
}
int kapi_post_drain_wr(struct kapi_qp *qp, kapi_u64 wr_id) { return rc_send(qp, wr_id, 0); }

/* The UD QP owner's calls: a fake QP carrying the context, as ib_create_qp's qp_context. */
struct kapi_qp *kapi_ud_qp_create(struct kapi_pd *pd, struct kapi_cq *send_cq, struct kapi_cq *recv_cq,
				  const struct kapi_qp_init *init)
{
	return fake_qp_new(init->ctx);
}
void kapi_qp_destroy(struct kapi_qp *qp) { fake_qp_free(qp); }
kapi_u32 kapi_qp_num(const struct kapi_qp *qp) { return 0x48; }
/* The Q_Key the UD QP was last given: at INIT or by kapi_qp_set_qkey. */
kapi_u32 fake_ud_qkey;
int kapi_ud_qp_to_init(struct kapi_qp *qp, kapi_u32 port, kapi_u16 pkey_index, kapi_u32 qkey)
{
	fake_ud_qkey = qkey;
	return 0;
}
int kapi_qp_set_qkey(struct kapi_qp *qp, kapi_u32 qkey)
{
	fake_ud_qkey = qkey;
	return 0;
}
int kapi_ud_qp_to_rts(struct kapi_qp *qp)
{
	fake_ud_state = KAPI_QPS_RTS;
	return 0;
}
int kapi_qp_to_error(struct kapi_qp *qp) { return 0; }
/* RESET, as the test sets it to fail (fake_reset_err); the later transitions succeed. */
int fake_reset_err;
int kapi_qp_to_reset(struct kapi_qp *qp)
{
	if (fake_reset_err)
		return fake_reset_err;
	fake_ud_state = KAPI_QPS_OTHER;
	return 0;
}
/* The UD QP's state as the test sets it (fake_ud_state), and the SQE -> RTS transition. */
int fake_ud_state = KAPI_QPS_RTS;
int fake_sqe_to_rts_err;
int kapi_qp_state(struct kapi_qp *qp) { return fake_ud_state; }
int kapi_ud_qp_sqe_to_rts(struct kapi_qp *qp)
{
	if (fake_ud_state != KAPI_QPS_SQE)
		return -KAPI_EINVAL;
	if (!fake_sqe_to_rts_err)
		fake_ud_state = KAPI_QPS_RTS;
	return fake_sqe_to_rts_err;
}

/* ---- CQs: a FIFO the test fills ---- */
struct kapi_cq {
	struct kapi_wc q[FAKE_CQ_DEPTH];
	int head, tail, polls, max_poll;
};
struct kapi_cq *fake_cq_new(void) { return kapi_kmalloc(sizeof(struct kapi_cq), KAPI_GFP_KERNEL | KAPI_GFP_ZERO); }
void fake_cq_free(struct kapi_cq *cq) { kapi_kfree(cq); }
void fake_cq_push(struct kapi_cq *cq, const struct kapi_wc *wc) { cq->q[cq->tail++ % FAKE_CQ_DEPTH] = *wc; }
int fake_cq_pending(struct kapi_cq *cq) { return cq->tail - cq->head; }
int fake_cq_poll_calls(struct kapi_cq *cq) { return cq->polls; }
int fake_cq_max_poll(struct kapi_cq *cq) { return cq->max_poll; }
static void cq_push_wc(struct kapi_cq *cq, struct kapi_ctx *ctx, kapi_u64 wr_id, kapi_u32 status, kapi_u32 len)
{
	struct kapi_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.qp_ctx = ctx;
	wc.wr_id = wr_id;
	wc.status = status;
	wc.byte_len = len;
	wc.is_recv = 0x5a;	/* an HCA's opcode in an error completion is junk (IBA 11.4.2.1) */
	fake_cq_push(cq, &wc);
}
int kapi_cq_poll(struct kapi_cq *cq, struct kapi_wc *wc, int n)
{
	int got = 0;

	if (n < 0 || n > KAPI_WR_BATCH_MAX)
		return -KAPI_EINVAL;	/* as the shim */
	cq->polls++;
	if (n > cq->max_poll)
		cq->max_poll = n;
	while (got < n && cq->head != cq->tail)
		wc[got++] = cq->q[cq->head++ % FAKE_CQ_DEPTH];
	return got;
}

/* ---- the netdev work item: pending + due time, as a delayed_work's timer ---- */
struct kapi_netdev {
	struct fake_work w;
};
struct kapi_netdev *fake_netdev_new(void) { return kapi_kmalloc(sizeof(struct kapi_netdev), KAPI_GFP_KERNEL | KAPI_GFP_ZERO); }
void fake_netdev_free(struct kapi_netdev *nd) { kapi_kfree(nd); }
struct fake_work *fake_netdev_work(struct kapi_netdev *nd) { return &nd->w; }
int kapi_netdev_work_queue(struct kapi_netdev *nd, unsigned int delay_ms)
{
	if (nd->w.pending)
		return 0;
	nd->w.pending = 1;
	nd->w.due_ms = delay_ms;
	return 1;
}
void kapi_netdev_work_mod(struct kapi_netdev *nd, unsigned int delay_ms)
{
	nd->w.pending = 1;
	nd->w.due_ms = delay_ms;
	nd->w.mods++;
}
int kapi_netdev_work_due_in(struct kapi_netdev *nd, kapi_u64 *ms)
{
	if (!nd->w.pending || !nd->w.due_ms)
		return 0;	/* idle, or queued to run now: no timer */
	*ms = nd->w.due_ms;
	return 1;
}

/* The SRQ owner's calls (Srq::create/destroy/arm_limit). */
struct kapi_srq *kapi_srq_create(struct kapi_pd *pd, kapi_u32 max_wr, kapi_u32 max_sge, kapi_u32 limit,
				 struct kapi_ctx *ctx)
{
	struct kapi_srq *srq = fake_srq_new();

	if (srq)
		srq->rq.max_sge = max_sge;
	return srq;
}
void kapi_srq_destroy(struct kapi_srq *srq) { fake_srq_free(srq); }
int kapi_srq_arm_limit(struct kapi_srq *srq, kapi_u32 limit) { return 0; }

/* ---- CM (kapi/cm.c): a Path frees its saved record; the host never saves one (no SA) */
void kapi_cm_path_free(struct kapi_cm_path *p) { kapi_kfree(p); }

/* ---- sleeping (RcTxRing::wait_completed): another context runs meanwhile (the hook) */
static void (*msleep_fn)(void *arg);
static void *msleep_arg;
static kapi_u64 slept_ms;
void fake_msleep_hook(void (*fn)(void *arg), void *arg)
{
	msleep_fn = fn;
	msleep_arg = arg;
	slept_ms = 0;
}
kapi_u64 fake_slept_ms(void) { return slept_ms; }
static kapi_u64 now_ms;	/* the fake clock: only sleeping moves it */
kapi_u64 kapi_now_ms(void) { return now_ms; }
void kapi_msleep(unsigned int ms)
{
	slept_ms += ms;
	now_ms += ms;
	if (msleep_fn)
		msleep_fn(msleep_arg);
}
