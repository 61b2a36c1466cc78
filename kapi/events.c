// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: asynchronous events. Port events of a device (an ib_event_handler per interface)
 * and the affiliated events of the QPs and SRQs the core created (IBA 11.6.3), each
 * translated to the boundary's kinds and handed to the core with the object's tagged
 * context. Which event means what is the core's.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include "kapi.h"
#include "verbs_priv.h"

/* ---- port events ---- */
struct kapi_event_handler {
	struct ib_event_handler h;
	struct kapi_ctx *ctx;
};

static void kapi_ib_event(struct ib_event_handler *h, struct ib_event *ev)
{
	struct kapi_event_handler *k = container_of(h, struct kapi_event_handler, h);
	enum kapi_ib_event_kind kind;

	switch (ev->event) {
	case IB_EVENT_PORT_ACTIVE: kind = KAPI_EV_PORT_ACTIVE; break;
	case IB_EVENT_PORT_ERR: kind = KAPI_EV_PORT_ERR; break;
	case IB_EVENT_LID_CHANGE: kind = KAPI_EV_LID_CHANGE; break;
	case IB_EVENT_PKEY_CHANGE: kind = KAPI_EV_PKEY_CHANGE; break;
	case IB_EVENT_SM_CHANGE: kind = KAPI_EV_SM_CHANGE; break;
	case IB_EVENT_CLIENT_REREGISTER: kind = KAPI_EV_CLIENT_REREGISTER; break;
	case IB_EVENT_GID_CHANGE: kind = KAPI_EV_GID_CHANGE; break;
	default: return;
	}
	ipoib_core_if_event(k->ctx, kind, ev->element.port_num);
}

struct kapi_event_handler *kapi_ib_event_register(struct kapi_ib_device *dev, struct kapi_ctx *ctx)
{
	struct kapi_event_handler *k = kzalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return NULL;
	k->ctx = ctx;
	INIT_IB_EVENT_HANDLER(&k->h, (struct ib_device *)dev, kapi_ib_event);
	ib_register_event_handler(&k->h);
	return k;
}

void kapi_ib_event_unregister(struct kapi_event_handler *k)
{
	ib_unregister_event_handler(&k->h);
	kfree(k);
}

/* ---- QP and SRQ events (handlers installed by kapi_ud_qp_create / kapi_srq_create) ---- */
enum kapi_qp_event_kind kapi_qp_event_kind_of(int ib_event)
{
	switch (ib_event) {
	case IB_EVENT_COMM_EST: return KAPI_QPEV_COMM_EST;
	case IB_EVENT_QP_LAST_WQE_REACHED: return KAPI_QPEV_LAST_WQE_REACHED;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR: return KAPI_QPEV_FATAL;
	case IB_EVENT_SQ_DRAINED: return KAPI_QPEV_SQ_DRAINED;
	case IB_EVENT_SRQ_LIMIT_REACHED: return KAPI_QPEV_SRQ_LIMIT_REACHED;
	case IB_EVENT_SRQ_ERR: return KAPI_QPEV_SRQ_ERR;
	default: return KAPI_QPEV_OTHER;
	}
}

void kapi_qp_event(struct ib_event *ev, void *ctx)
{
	ipoib_core_qp_event(ctx, kapi_qp_event_kind_of(ev->event));
}

void kapi_srq_event(struct ib_event *ev, void *ctx)
{
	ipoib_core_srq_event(ctx, kapi_qp_event_kind_of(ev->event));
}
