/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_sa.h - the shim file kapi/sa.c: SA multicast joins and path queries.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_SA_H
#define KAPI_SA_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_ib_device;
struct kapi_mcast;
struct kapi_path;

int kapi_sa_register(void) KAPI_NOEXCEPT;
void kapi_sa_unregister(void) KAPI_NOEXCEPT;

struct kapi_mcmember {
	kapi_u8 mgid[16];
	kapi_u8 port_gid[16];
	kapi_u32 qkey;
	kapi_u16 mlid;
	kapi_u16 pkey;
	kapi_u8 mtu;		/* enum ib_mtu */
	kapi_u8 mtu_selector;
	kapi_u8 rate;
	kapi_u8 rate_selector;
	kapi_u8 sl;
	kapi_u8 hop_limit;
	kapi_u8 traffic_class;
	kapi_u8 join_state;	/* bit 0 full, 1 non, 2 send-only non, 3 send-only full */
	kapi_u32 flow_label;
};
/* Join: copy_params != 0 sends Q_Key, MTU, rate, SL, ... from req too (non-broadcast groups).
 * The callback ipoib_core_join_done(ctx, mc, status) can run before this returns and again
 * later (errors such as -ENETRESET); never free the handle from the callback. */
struct kapi_mcast *kapi_sa_join(struct kapi_ib_device *ib, kapi_u32 port, const struct kapi_mcmember *req,
				int copy_params, struct kapi_ctx *ctx) KAPI_NOEXCEPT;	/* NULL on failure */
void kapi_sa_leave(struct kapi_mcast *mc) KAPI_NOEXCEPT;	/* ib_sa_free_multicast; sleeps */
/* ib_sa_get_mcmember_rec: 0 when some SA client on this port is already a member. */
int kapi_sa_mcmember_known(struct kapi_ib_device *ib, kapi_u32 port, const kapi_u8 mgid[16]) KAPI_NOEXCEPT;
void kapi_mcast_rec(const struct kapi_mcast *mc, struct kapi_mcmember *out) KAPI_NOEXCEPT;

/* Path query: DGID/SGID/P_Key, NUMB_PATH 1, TRAFFIC_CLASS 0. Completion: ipoib_core_path_done.
 * Returns the query id (>= 0) or -errno. */
int kapi_sa_path_query(struct kapi_ib_device *ib, kapi_u32 port, const kapi_u8 dgid[16], const kapi_u8 sgid[16],
		       kapi_u16 pkey, unsigned int timeout_ms, struct kapi_ctx *ctx, void **query) KAPI_NOEXCEPT;
void kapi_sa_cancel(int id, void *query) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_SA_H */
