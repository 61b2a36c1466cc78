/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_entry.h - the core's entry points: every function the C++ core implements and only
 * the shim calls (ipoib_entry.cpp holds them all). Each takes the tagged context the core
 * gave the shim (kapi_ctx.h); the core checks the tag before it uses the object.
 * Included by kapi.h.
 */
#ifndef KAPI_ENTRY_H
#define KAPI_ENTRY_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_params;
struct kapi_ib_device;
struct kapi_netdev;
struct kapi_skb;
struct kapi_mcast;
struct kapi_path;
struct kapi_seq;
struct kapi_sockaddr;
struct kapi_link_args;
enum kapi_ib_event_kind;
enum kapi_qp_event_kind;

/* ---- module and ib_client (kapi/module.c, kapi/ib.c) ---- */
int ipoib_core_init(const struct kapi_params *params) KAPI_NOEXCEPT;
void ipoib_core_exit(void) KAPI_NOEXCEPT;
/* The debug_level module parameter once the module is live (before, the value is only kept
 * for ipoib_core_init): the core parses, validates and applies a write (0, or -EINVAL with
 * one log line) and reports the level in force. */
int ipoib_core_debug_level_write(const char *buf, kapi_size_t len) KAPI_NOEXCEPT;
int ipoib_core_debug_level_read(void) KAPI_NOEXCEPT;
/* Returns 0 and sets *ctx to keep the device, or -EOPNOTSUPP when nothing on it is wanted. */
int ipoib_core_add_device(struct kapi_ctx *driver, struct kapi_ib_device *dev, void **ctx) KAPI_NOEXCEPT;
void ipoib_core_remove_device(struct kapi_ctx *driver, struct kapi_ib_device *dev, void *ctx) KAPI_NOEXCEPT;
/* get_net_dev_by_params, with ib_core's client_data_rwsem held for reading (so dev_ctx, the
 * ipoib_core_add_device context, stays valid). gid: 16 octets or NULL. A held netdev or NULL. */
struct kapi_netdev *ipoib_core_get_netdev(void *dev_ctx, kapi_u32 port, kapi_u16 pkey, const kapi_u8 *gid,
					  const struct kapi_sockaddr *addr) KAPI_NOEXCEPT;

/* ---- net_device_ops, header_ops, NAPI, work (kapi/netdev.c) ---- */
int ipoib_core_if_open(struct kapi_ctx *core) KAPI_NOEXCEPT;
int ipoib_core_if_stop(struct kapi_ctx *core) KAPI_NOEXCEPT;
int ipoib_core_if_xmit(struct kapi_ctx *core, struct kapi_skb *skb) KAPI_NOEXCEPT;	/* always consumes the skb */
void ipoib_core_if_tx_timeout(struct kapi_ctx *core) KAPI_NOEXCEPT;
void ipoib_core_if_rx_mode(struct kapi_ctx *core) KAPI_NOEXCEPT;	/* atomic context */
int ipoib_core_if_change_mtu(struct kapi_ctx *core, kapi_u32 mtu) KAPI_NOEXCEPT;
/* ndo_fix_features: the KAPI_FEAT_* offloads the admin mode allows out of those wanted. */
kapi_u32 ipoib_core_if_fix_features(struct kapi_ctx *core, kapi_u32 features) KAPI_NOEXCEPT;
void ipoib_core_if_renamed(struct kapi_ctx *core) KAPI_NOEXCEPT;	/* rtnl held */
int ipoib_core_if_poll(struct kapi_ctx *core, int budget) KAPI_NOEXCEPT;
void ipoib_core_if_work(struct kapi_ctx *core) KAPI_NOEXCEPT;
int ipoib_core_if_header_create(struct kapi_ctx *core, struct kapi_skb *skb, kapi_u16 type,
				const kapi_u8 *daddr) KAPI_NOEXCEPT;
struct kapi_stats64 {
	kapi_u64 rx_packets, tx_packets, rx_bytes, tx_bytes, rx_errors, tx_errors, rx_dropped, tx_dropped, multicast;
};
void ipoib_core_if_stats(struct kapi_ctx *core, struct kapi_stats64 *out) KAPI_NOEXCEPT;

/* ---- ethtool (kapi/ethtool.c) ---- */
int ipoib_core_if_stat_count(struct kapi_ctx *core) KAPI_NOEXCEPT;
const char *ipoib_core_if_stat_name(struct kapi_ctx *core, int i) KAPI_NOEXCEPT;
/* out[0..n): every value at once (one snapshot of the connections); n is the count above */
void ipoib_core_if_stat_values(struct kapi_ctx *core, kapi_u64 *out, int n) KAPI_NOEXCEPT;
void ipoib_core_if_ring_sizes(struct kapi_ctx *core, kapi_u32 *tx, kapi_u32 *rx, kapi_u32 *max) KAPI_NOEXCEPT;
kapi_u32 ipoib_core_if_speed(struct kapi_ctx *core) KAPI_NOEXCEPT;	/* Mb/s, 0 = unknown */
/* ethtool -c/-C (receive CQ moderation) */
void ipoib_core_if_get_coalesce(struct kapi_ctx *core, kapi_u32 *usecs, kapi_u32 *frames) KAPI_NOEXCEPT;
int ipoib_core_if_set_coalesce(struct kapi_ctx *core, kapi_u32 usecs, kapi_u32 frames) KAPI_NOEXCEPT;
/* ethtool -G, rtnl held: 0 or -errno (*why: a static reason when refused); addr gets the
 * 20-byte link-layer address afterwards (a new UD QP has a new QPN) */
int ipoib_core_if_set_rings(struct kapi_ctx *core, kapi_u32 tx, kapi_u32 rx, kapi_u8 *addr, const char **why) KAPI_NOEXCEPT;

/* ---- sysfs (kapi/sysfs.c) ---- */
/* The mode: its sysfs name ("datagram") and its IFLA_IPOIB_MODE value (IPOIB_MODE_*). */
const char *ipoib_core_if_mode_name(struct kapi_ctx *core) KAPI_NOEXCEPT;
kapi_u16 ipoib_core_if_mode(struct kapi_ctx *core) KAPI_NOEXCEPT;
int ipoib_core_if_mode_store(struct kapi_ctx *core, const char *buf, kapi_size_t len) KAPI_NOEXCEPT;
int ipoib_core_if_umcast(struct kapi_ctx *core) KAPI_NOEXCEPT;
int ipoib_core_if_umcast_store(struct kapi_ctx *core, const char *buf, kapi_size_t len) KAPI_NOEXCEPT;
kapi_u16 ipoib_core_if_pkey(struct kapi_ctx *core) KAPI_NOEXCEPT;

/* ---- events (kapi/events.c), SA (kapi/sa.c), debugfs (kapi/debugfs.c) ---- */
void ipoib_core_if_event(struct kapi_ctx *core, enum kapi_ib_event_kind kind, kapi_u32 port) KAPI_NOEXCEPT;
void ipoib_core_qp_event(struct kapi_ctx *qp, enum kapi_qp_event_kind kind) KAPI_NOEXCEPT;
void ipoib_core_srq_event(struct kapi_ctx *srq, enum kapi_qp_event_kind kind) KAPI_NOEXCEPT;
int ipoib_core_join_done(struct kapi_ctx *group, struct kapi_mcast *mc, int status) KAPI_NOEXCEPT;
void ipoib_core_path_done(struct kapi_ctx *path, int status, struct kapi_path *rec, kapi_u16 dlid) KAPI_NOEXCEPT;
void ipoib_core_debugfs_show(struct kapi_ctx *file, struct kapi_seq *s) KAPI_NOEXCEPT;
/* A write to a kapi_debugfs_knob file: buf holds the first len of total bytes. 0 or -errno. */
int ipoib_core_debugfs_write(struct kapi_ctx *file, const char *buf, kapi_size_t len, kapi_size_t total) KAPI_NOEXCEPT;

/* ---- P_Key children (kapi/link.c), all called with rtnl held; owner: the Port ---- */
int ipoib_core_child_sysfs(struct kapi_ctx *owner, int create, const char *buf, kapi_size_t len) KAPI_NOEXCEPT;
/* parent: the IFLA_LINK device, NULL if missing or not ours; parent_owner NULL then too. */
int ipoib_core_child_newlink(struct kapi_ctx *parent_owner, struct kapi_netdev *parent, int parent_is_child,
			     struct kapi_netdev *dev, const struct kapi_link_args *a) KAPI_NOEXCEPT;
void ipoib_core_child_dellink(struct kapi_ctx *owner, struct kapi_ctx *core) KAPI_NOEXCEPT;
int ipoib_core_if_changelink(struct kapi_ctx *core, const struct kapi_link_args *a) KAPI_NOEXCEPT;

/* ---- connected mode: ib_cm callbacks (kapi/cm.c), in ib_cm's process context ---- */
struct kapi_cm_id;
struct kapi_cm_event;
/* A REQ on a listening id (ctx: the listener's): the context the new id gets, NULL to reject. */
struct kapi_ctx *ipoib_core_cm_req(struct kapi_ctx *listener, struct kapi_cm_id *id,
				   const struct kapi_cm_event *ev) KAPI_NOEXCEPT;
/* Every other event of an id (ctx: the connection's). */
void ipoib_core_cm_event(struct kapi_ctx *conn, const struct kapi_cm_event *ev) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_ENTRY_H */
