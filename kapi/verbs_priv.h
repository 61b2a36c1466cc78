/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbs_priv.h - between the shim's verbs.c, dma.c and events.c (never seen by C++): the QP and
 * SRQ event handlers verbs.c installs at creation, and the device handle's conversion.
 */
#ifndef KAPI_VERBS_PRIV_H
#define KAPI_VERBS_PRIV_H

#include <rdma/ib_verbs.h>

void kapi_qp_event(struct ib_event *ev, void *ctx);
void kapi_srq_event(struct ib_event *ev, void *ctx);

static inline struct ib_device *to_ib(const struct kapi_ib_device *d)
{
	return (struct ib_device *)d;
}

#endif
