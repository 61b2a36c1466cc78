/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_cm.h - the shim file kapi/cm.c: the IB connection manager (ib_cm) for connected mode
 * (RFC 4755): cm_ids with the core's tagged context, listening on a service ID, the CM
 * messages (REQ, REP, RTU, REJ with ARI, DREQ, DREP), ib_cm_notify(COMM_EST), the RC QP
 * state changes that ib_cm computes (ib_cm_init_qp_attr), a saved copy of a path record for
 * the REQ, an unbound workqueue with one work item per connection.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy
 * (the values in every message are the core's, docs/connected.md §3). Included by kapi.h.
 *
 * Events: one handler per cm_id flattens struct ib_cm_event into struct kapi_cm_event and
 * calls ipoib_core_cm_event(ctx, ...) with the id's context; a REQ on a listening id calls
 * ipoib_core_cm_req(listener ctx, new id, ...) instead, which returns the context the new id
 * gets before any other event of it can arrive (core/cm.c cm_req_handler gives the new id the
 * listener's context until then). The handler returns 0 (the core destroys its ids itself,
 * from process context outside the callback, as ib_cm.h requires) except when the core had no
 * object for a new REQ (NULL): the core has sent its REJ (with its private data, through
 * kapi_cm_send_rej) and the non-zero return makes ib_cm destroy the id, the only way an id
 * nobody owns can go.
 */
#ifndef KAPI_CM_H
#define KAPI_CM_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_ib_device;
struct kapi_netdev;
struct kapi_qp;
struct kapi_path;
struct kapi_cm_id;	/* struct ib_cm_id */
struct kapi_cm_path;	/* a kmalloc'ed struct sa_path_rec */
struct kapi_wq;		/* struct workqueue_struct, unbound */
struct kapi_work;	/* a work_struct and the core's callback */

/* Completion statuses the state machine tells apart (enum ib_wc_status; kapi/cm.c asserts). */
#define KAPI_WC_RETRY_EXC_ERR 12
#define KAPI_WC_RNR_RETRY_EXC_ERR 13

/* ---- events ---- */
enum kapi_cm_event_kind {
	KAPI_CM_EV_OTHER,		/* LAP/APR/SIDR: nothing the core uses (counted) */
	KAPI_CM_EV_REQ,			/* IB_CM_REQ_RECEIVED (only through ipoib_core_cm_req) */
	KAPI_CM_EV_REP,			/* IB_CM_REP_RECEIVED */
	KAPI_CM_EV_RTU,			/* IB_CM_RTU_RECEIVED */
	KAPI_CM_EV_USER_ESTABLISHED,	/* IB_CM_USER_ESTABLISHED (after ib_cm_notify COMM_EST) */
	KAPI_CM_EV_REJ,			/* IB_CM_REJ_RECEIVED: rej_reason */
	KAPI_CM_EV_MRA,			/* IB_CM_MRA_RECEIVED */
	KAPI_CM_EV_DREQ,		/* IB_CM_DREQ_RECEIVED */
	KAPI_CM_EV_DREP,		/* IB_CM_DREP_RECEIVED */
	KAPI_CM_EV_TIMEWAIT_EXIT,	/* IB_CM_TIMEWAIT_EXIT */
	KAPI_CM_EV_REQ_ERROR,		/* IB_CM_REQ_ERROR: send_status */
	KAPI_CM_EV_REP_ERROR,		/* IB_CM_REP_ERROR */
	KAPI_CM_EV_DREQ_ERROR,		/* IB_CM_DREQ_ERROR */
	KAPI_CM_EV_KIND_COUNT
};

/* One CM event, valid only during the call. */
struct kapi_cm_event {
	enum kapi_cm_event_kind kind;
	const kapi_u8 *priv;	/* the message's private data (ib_cm's fixed-size, zero-padded field) */
	kapi_u32 priv_len;	/* 92 REQ, 196 REP, 148 REJ (IBA 12.6.5/12.6.8/12.6.7), else 0 */
	kapi_u32 remote_qpn;	/* REQ, REP: the peer's RC QPN */
	kapi_u64 service_id;	/* REQ: the service ID it was sent to (host order) */
	kapi_u8 dgid[16];	/* REQ: primary path DGID, the requester's port GID */
	kapi_u32 rej_reason;	/* REJ: IBA 12.6.7.2 code */
	kapi_u32 send_status;	/* *_ERROR: enum ib_wc_status of the failed MAD */
	kapi_u8 port;		/* REQ: the port it arrived on */
	/* REQ: the timers ib_cm took from it (IBA 12.6.5), 5-bit IBA time values; local_ack is
	 * the primary path's Local ACK Timeout (Max CM Retries is not in ib_cm's event) */
	kapi_u8 req_remote_response;
	kapi_u8 req_local_response;
	kapi_u8 req_local_ack;
	kapi_u32 req_lid;	/* REQ: its Primary Local Port LID, the requester's LID as it claims */
	kapi_u16 req_pkey;	/* REQ: its Partition Key (IBA 12.6.5), host order */
};

/* ---- cm_ids ---- */
/* A cm_id whose events reach the core with ctx. NULL on failure. Process context. */
struct kapi_cm_id *kapi_cm_id_create(struct kapi_ib_device *ib, struct kapi_ctx *ctx) KAPI_NOEXCEPT;
/* ib_destroy_cm_id: sleeps until the id's running callbacks returned, sends what its CM state
 * still needs (REJ, DREQ, DREP). Never from a callback of the same id. */
void kapi_cm_id_destroy(struct kapi_cm_id *id) KAPI_NOEXCEPT;
/* ib_cm_listen on service_id (host order); 0 or -errno. */
int kapi_cm_listen(struct kapi_cm_id *id, kapi_u64 service_id) KAPI_NOEXCEPT;

/* ---- messages (0 or -errno; process context) ---- */
struct kapi_cm_req_args {
	const struct kapi_cm_path *path;	/* the primary path (kapi_cm_path_save/copy) */
	kapi_u64 service_id;
	kapi_u32 qpn;
	kapi_u32 psn;		/* starting PSN, 24 bits */
	const void *priv;
	kapi_u8 priv_len;
	kapi_u8 response_timeout;	/* remote and local CM response timeout (IBA time value) */
	kapi_u8 max_cm_retries;
	kapi_u8 retry_count;
	kapi_u8 rnr_retry_count;
	kapi_u8 srq;
};
int kapi_cm_send_req(struct kapi_cm_id *id, const struct kapi_cm_req_args *a) KAPI_NOEXCEPT;
struct kapi_cm_rep_args {
	kapi_u32 qpn;
	kapi_u32 psn;
	const void *priv;
	kapi_u8 priv_len;
	kapi_u8 rnr_retry_count;
	kapi_u8 srq;
};
int kapi_cm_send_rep(struct kapi_cm_id *id, const struct kapi_cm_rep_args *a) KAPI_NOEXCEPT;
int kapi_cm_send_rtu(struct kapi_cm_id *id) KAPI_NOEXCEPT;
/* ari: NULL or ari_len (<= 72) octets of Additional Rejection Information. */
int kapi_cm_send_rej(struct kapi_cm_id *id, kapi_u32 reason, const void *ari, kapi_u8 ari_len, const void *priv,
		     kapi_u8 priv_len) KAPI_NOEXCEPT;
int kapi_cm_send_dreq(struct kapi_cm_id *id) KAPI_NOEXCEPT;
int kapi_cm_send_drep(struct kapi_cm_id *id) KAPI_NOEXCEPT;
/* ib_cm_notify(IB_EVENT_COMM_EST): only spinlocks, any context. */
int kapi_cm_notify_comm_est(struct kapi_cm_id *id) KAPI_NOEXCEPT;

/* ---- RC QP state changes ---- */
enum kapi_cm_qp_state { KAPI_CM_QPS_INIT, KAPI_CM_QPS_RTR, KAPI_CM_QPS_RTS };
/* The retry attributes of an RC QP at RTS (IBA 9.7.6.1.3 timeout and retry_cnt, 9.7.5.2.8
 * rnr_retry), as ib_cm takes them from the REQ/REP. */
struct kapi_cm_qp_retry {
	kapi_u8 timeout;	/* local ACK timeout, IBA time value */
	kapi_u8 retry_cnt;	/* transport retries */
	kapi_u8 rnr_retry;	/* RNR retries, 7 = infinite */
};
/* What ib_cm_init_qp_attr(RTS) would write for the three (0 for any it leaves out). */
int kapi_cm_rts_retry(struct kapi_cm_id *id, struct kapi_cm_qp_retry *out) KAPI_NOEXCEPT;
/* ib_cm_init_qp_attr(state) then ib_modify_qp; for RTR, min_rnr_timer (IBA table 45 code) is
 * written over what ib_cm chose; for RTS, rts (NULL: ib_cm's) replaces the retry attributes
 * ib_cm sets. INIT needs an id that received a REQ or sent one (ib_cm). */
int kapi_cm_modify_qp(struct kapi_cm_id *id, struct kapi_qp *qp, enum kapi_cm_qp_state state,
		      kapi_u8 min_rnr_timer, const struct kapi_cm_qp_retry *rts) KAPI_NOEXCEPT;
/* INIT without ib_cm (an active QP before its REQ: its id is still idle): port, P_Key index,
 * no remote access. */
int kapi_rc_qp_to_init(struct kapi_qp *qp, kapi_u32 port, kapi_u16 pkey_index) KAPI_NOEXCEPT;
/* A random starting PSN (24 bits). */
kapi_u32 kapi_cm_random_psn(void) KAPI_NOEXCEPT;
/* 64 random bits (get_random_u64): the identity proof's nonce. */
kapi_u64 kapi_cm_random_u64(void) KAPI_NOEXCEPT;
/* The device's node GUID (network order, 8 octets): the ARI of a Timeout REJ. */
void kapi_cm_node_guid(struct kapi_ib_device *ib, kapi_u8 out[8]) KAPI_NOEXCEPT;

/* ---- path records for the REQ ---- */
/* A copy of a path record (valid only during the path callback) that the core keeps;
 * NULL without memory. Process context. */
struct kapi_cm_path *kapi_cm_path_save(const struct kapi_path *rec) KAPI_NOEXCEPT;
struct kapi_cm_path *kapi_cm_path_alloc(void) KAPI_NOEXCEPT;	/* uninitialised; process context */
void kapi_cm_path_copy(struct kapi_cm_path *dst, const struct kapi_cm_path *src) KAPI_NOEXCEPT;	/* any context */
void kapi_cm_path_free(struct kapi_cm_path *p) KAPI_NOEXCEPT;
/* the path's packet lifetime (IBA 4.096 us x 2^value), which ib_cm's REQ timeout uses */
kapi_u8 kapi_cm_path_packet_life(const struct kapi_cm_path *p) KAPI_NOEXCEPT;

/* ---- work ---- */
/* An unbound workqueue (alloc_workqueue WQ_UNBOUND | WQ_MEM_RECLAIM, default max_active):
 * different work items run concurrently, in no order; one work item never runs concurrently
 * with itself (the workqueue's non-reentrancy, Documentation/core-api/workqueue.rst), and a
 * queue of an item that is running runs it once more after it returns. NULL on failure. */
struct kapi_wq *kapi_wq_create(const char *name) KAPI_NOEXCEPT;
void kapi_wq_destroy(struct kapi_wq *wq) KAPI_NOEXCEPT;	/* drains it first */
/* A work item running fn(ctx) on wq; gfp: KAPI_GFP_*. NULL without memory. */
struct kapi_work *kapi_work_create(struct kapi_wq *wq, void (*fn)(struct kapi_ctx *ctx), struct kapi_ctx *ctx,
				   unsigned int gfp) KAPI_NOEXCEPT;
void kapi_work_queue(struct kapi_work *w) KAPI_NOEXCEPT;	/* any context; no-op when pending */
void kapi_work_cancel(struct kapi_work *w) KAPI_NOEXCEPT;	/* cancel_work_sync; not from fn itself */
void kapi_work_free(struct kapi_work *w) KAPI_NOEXCEPT;		/* after kapi_work_cancel (or never queued) */


#ifdef __cplusplus
}
#endif

#endif /* KAPI_CM_H */
