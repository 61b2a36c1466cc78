/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_events.h - the shim file kapi/events.c: asynchronous events of a device (port events)
 * and of the QPs and SRQs the core created (their handlers are installed at creation,
 * kapi_verbs.h). Each reaches the core with the object's tagged context.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_EVENTS_H
#define KAPI_EVENTS_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_ib_device;

/* Port events of one device: ipoib_core_if_event(ctx, kind, port); NULL on allocation failure. */
enum kapi_ib_event_kind {
	KAPI_EV_OTHER, KAPI_EV_PORT_ACTIVE, KAPI_EV_PORT_ERR, KAPI_EV_LID_CHANGE, KAPI_EV_PKEY_CHANGE,
	KAPI_EV_SM_CHANGE, KAPI_EV_CLIENT_REREGISTER, KAPI_EV_GID_CHANGE,
};
struct kapi_event_handler;
struct kapi_event_handler *kapi_ib_event_register(struct kapi_ib_device *dev, struct kapi_ctx *ctx) KAPI_NOEXCEPT;
void kapi_ib_event_unregister(struct kapi_event_handler *h) KAPI_NOEXCEPT;

/* QP and SRQ affiliated events (IBA 11.6.3): ipoib_core_qp_event(qp ctx, kind) and
 * ipoib_core_srq_event(srq ctx, kind), in the provider's (atomic) context. */
enum kapi_qp_event_kind {
	KAPI_QPEV_OTHER,		/* anything the core has no use for (counted) */
	KAPI_QPEV_COMM_EST,		/* IB_EVENT_COMM_EST: first receive on an RC QP in RTR */
	KAPI_QPEV_LAST_WQE_REACHED,	/* IB_EVENT_QP_LAST_WQE_REACHED: SRQ-attached QP drained */
	KAPI_QPEV_FATAL,		/* IB_EVENT_QP_FATAL / QP_REQ_ERR / QP_ACCESS_ERR */
	KAPI_QPEV_SQ_DRAINED,		/* IB_EVENT_SQ_DRAINED */
	KAPI_QPEV_SRQ_LIMIT_REACHED,	/* IB_EVENT_SRQ_LIMIT_REACHED: below the armed limit */
	KAPI_QPEV_SRQ_ERR,		/* IB_EVENT_SRQ_ERR */
	KAPI_QPEV_KIND_COUNT
};
/* The translation the handlers use (enum ib_event_type value in, kind out); exported so a
 * KUnit case can check it against the kernel's enum. */
enum kapi_qp_event_kind kapi_qp_event_kind_of(int ib_event) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_EVENTS_H */
