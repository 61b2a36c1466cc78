/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_ib.h - the shim file kapi/ib.c: the ib_client, device and port queries.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_IB_H
#define KAPI_IB_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- InfiniBand client ---- */
struct kapi_ib_device;	/* struct ib_device */

/* Registers the driver's ib_client; add/remove land in ipoib_core_{add,remove}_device(). */
int kapi_ib_register_client(struct kapi_ctx *driver) KAPI_NOEXCEPT;
void kapi_ib_unregister_client(void) KAPI_NOEXCEPT;
const char *kapi_ib_device_name(const struct kapi_ib_device *dev) KAPI_NOEXCEPT;
kapi_u32 kapi_ib_first_port(const struct kapi_ib_device *dev) KAPI_NOEXCEPT;
kapi_u32 kapi_ib_last_port(const struct kapi_ib_device *dev) KAPI_NOEXCEPT;
/* rdma_protocol_ib(): the port runs the InfiniBand link layer (not RoCE/iWARP/OPA). */
int kapi_ib_port_is_ib(const struct kapi_ib_device *dev, kapi_u32 port) KAPI_NOEXCEPT;


/* ---- port queries ---- */
#define KAPI_IB_PORT_ACTIVE 4	/* enum ib_port_state (static_checks.c) */
struct kapi_port_attr {
	kapi_u32 state;		/* enum ib_port_state; KAPI_IB_PORT_ACTIVE */
	kapi_u32 lid;
	kapi_u32 sm_lid;
	kapi_u32 max_mtu;	/* enum ib_mtu (1 = 256 ... 5 = 4096) */
	kapi_u32 active_mtu;
	kapi_u32 active_speed;	/* enum ib_port_speed (1 SDR, 2 DDR, 4 QDR, 8 FDR10, 16 FDR, ...) */
	kapi_u32 active_width;	/* enum ib_port_width (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x) */
};
int kapi_ib_query_port(struct kapi_ib_device *dev, kapi_u32 port, struct kapi_port_attr *out) KAPI_NOEXCEPT;
int kapi_ib_query_pkey(struct kapi_ib_device *dev, kapi_u32 port, kapi_u16 index, kapi_u16 *pkey) KAPI_NOEXCEPT;
int kapi_ib_find_pkey(struct kapi_ib_device *dev, kapi_u32 port, kapi_u16 pkey, kapi_u16 *index) KAPI_NOEXCEPT;
/* The device's scatter/gather limits (ib_device.attrs): SGEs per receive WR on a QP and on
 * an SRQ, per send WR. */
struct kapi_dev_sge {
	kapi_u32 max_recv_sge;
	kapi_u32 max_srq_sge;
	kapi_u32 max_send_sge;	/* gather entries per send WR */
};
void kapi_ib_query_sge(const struct kapi_ib_device *dev, struct kapi_dev_sge *out) KAPI_NOEXCEPT;
int kapi_ib_query_gid(struct kapi_ib_device *dev, kapi_u32 port, int index, kapi_u8 gid[16]) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_IB_H */
