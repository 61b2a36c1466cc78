/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_netdev.h - the shim file kapi/netdev.c: the IPoIB net_device (its ops tables call the
 * core's entry points, kapi_entry.h; ethtool.c and sysfs.c hold the ethtool and sysfs
 * tables), NAPI and the netdev's one work item.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_NETDEV_H
#define KAPI_NETDEV_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_netdev;	/* struct net_device (its priv area belongs to the shim) */
struct kapi_ib_device;

/* Values the core decides; the shim copies them into the net_device. */
struct kapi_netdev_setup {
	const char *name;		/* template with %d */
	kapi_u32 dev_port;
	kapi_u32 mtu;
	kapi_u32 max_mtu;
	kapi_u32 tx_queue_len;
	kapi_u16 hard_header_len;	/* pseudo header + encapsulation header */
	kapi_u8 addr_len;
	kapi_u8 dev_addr[32];
	kapi_u8 broadcast[32];
	kapi_u32 hw_features;		/* KAPI_FEAT_*: hw_features (what ethtool -K may toggle) */
	struct kapi_ctx *owner;		/* the core's Port: sysfs create/delete_child, rtnl links */
	struct kapi_netdev *parent;	/* a P_Key child's parent netdev; NULL for a port's own */
	struct kapi_netdev *adopt;	/* the net_device rtnl allocated for newlink, else NULL */
};
/* alloc_netdev + ARPHRD_INFINIBAND + ops tables; parent = the ib_device's parent device.
 * core: the context every ops callback, NAPI poll and work run gets. */
struct kapi_netdev *kapi_netdev_alloc(const struct kapi_netdev_setup *setup, struct kapi_ib_device *ib,
				      struct kapi_ctx *core) KAPI_NOEXCEPT;
void kapi_netdev_free(struct kapi_netdev *nd) KAPI_NOEXCEPT;
int kapi_netdev_register(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_unregister(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* The same with rtnl already held by the caller (sysfs create/delete_child, newlink, dellink). */
int kapi_netdev_register_locked(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_unregister_locked(struct kapi_netdev *nd) KAPI_NOEXCEPT;
const char *kapi_netdev_name(const struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_set_dev_addr(struct kapi_netdev *nd, const kapi_u8 *addr) KAPI_NOEXCEPT;	/* takes rtnl */
/* For the work item (ndo_stop cancels it under rtnl): -EAGAIN when rtnl is busy. */
int kapi_netdev_set_dev_addr_trylock(struct kapi_netdev *nd, const kapi_u8 *addr) KAPI_NOEXCEPT;
void kapi_netdev_set_broadcast(struct kapi_netdev *nd, const kapi_u8 *addr) KAPI_NOEXCEPT;
void kapi_netdev_set_max_mtu(struct kapi_netdev *nd, kapi_u32 mtu) KAPI_NOEXCEPT;
/* rtnl held by the caller: dev_set_mtu (notifiers, ndo_change_mtu) and the current MTU. */
int kapi_netdev_set_mtu_locked(struct kapi_netdev *nd, kapi_u32 mtu) KAPI_NOEXCEPT;
kapi_u32 kapi_netdev_mtu(const struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* rtnl_trylock / rtnl_unlock, for the work item (ndo_stop cancels it under rtnl). */
int kapi_rtnl_trylock(void) KAPI_NOEXCEPT;
/* A netdev notifier that calls ipoib_core_if_renamed(core) on NETDEV_CHANGENAME of our
 * netdevs (rtnl held). */
int kapi_netdev_notifier_register(void) KAPI_NOEXCEPT;
void kapi_netdev_notifier_unregister(void) KAPI_NOEXCEPT;
void kapi_rtnl_unlock(void) KAPI_NOEXCEPT;
/* Offloads, in the shim's own bits (netdev.c maps them to NETIF_F_*); which ones a mode
 * allows is the core's (ndo_fix_features -> ipoib_core_if_fix_features). */
#define KAPI_FEAT_IP_CSUM	0x01u
#define KAPI_FEAT_IPV6_CSUM	0x02u
#define KAPI_FEAT_HW_CSUM	0x04u
#define KAPI_FEAT_RXCSUM	0x08u
#define KAPI_FEAT_TSO		0x10u
#define KAPI_FEAT_TSO6		0x20u
#define KAPI_FEAT_SG		0x40u
/* netdev_update_features (rtnl held): recompute features through ndo_fix_features. */
void kapi_netdev_update_features(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_carrier(struct kapi_netdev *nd, int on) KAPI_NOEXCEPT;
void kapi_netdev_start_queue(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_stop_queue(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_wake_queue(struct kapi_netdev *nd) KAPI_NOEXCEPT;
int kapi_netdev_queue_stopped(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* IFF_UP (administratively up: the kernel calls ndo_stop before it clears it) */
int kapi_netdev_admin_up(const struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* The tx queue's _xmit_lock taken and dropped (kapi_netdev_xmit_lock): every ndo_start_xmit
 * running when called has returned, on any path (noqueue and netpoll included). */
void kapi_netdev_tx_barrier(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* The netdev's one tx queue's own _xmit_lock (__netif_tx_lock_bh on queue 0, BHs off): every
 * ndo_start_xmit of a device without LLTX runs under it, whatever the root qdisc. Not
 * netif_tx_lock: that only sets the FROZEN bit, which the noqueue path of __dev_queue_xmit and
 * netpoll never test (net/core/dev.c, netpoll.c), so xmit can run while it is held. Nothing
 * held under it may re-enter dev_queue_xmit on the device (xmit_lock_owner: a dead loop). */
void kapi_netdev_xmit_lock(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_netdev_xmit_unlock(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* Copies up to max multicast hw addresses (addr_len bytes each) of the netdev; returns the count. */
int kapi_netdev_mc_list(struct kapi_netdev *nd, kapi_u8 *out, int max, int addr_len) KAPI_NOEXCEPT;

/* The one work item of a netdev (a delayed_work on system_wq): runs ipoib_core_if_work(core)
 * in process context. When to run it is the core's (ipoib_work.h); these are the three
 * kernel operations that rule is built from. */
/* queue_delayed_work: 1 when it was idle and is now queued for delay_ms, 0 if already pending */
int kapi_netdev_work_queue(struct kapi_netdev *nd, unsigned int delay_ms) KAPI_NOEXCEPT;
/* mod_delayed_work: queued for delay_ms from now, whatever it was */
void kapi_netdev_work_mod(struct kapi_netdev *nd, unsigned int delay_ms) KAPI_NOEXCEPT;
/* 1 and the ms until its timer fires when it waits on a timer; 0 otherwise (idle, or queued to
 * run now). Racy by nature: the answer may be stale by the time it is used. */
int kapi_netdev_work_due_in(struct kapi_netdev *nd, kapi_u64 *ms) KAPI_NOEXCEPT;
void kapi_netdev_cancel_work(struct kapi_netdev *nd) KAPI_NOEXCEPT;	/* _sync */

/* NAPI (one per netdev) */
/* napi_enable / napi_disable: the kernel's NAPI is not idempotent (enabling an enabled one is a
 * BUG_ON, disabling a disabled one never returns); the core keeps the state and pairs them */
void kapi_napi_enable(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_napi_disable(struct kapi_netdev *nd) KAPI_NOEXCEPT;
void kapi_napi_schedule(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/* napi_complete_done; returns 0 if the poll must not re-arm the CQs */
int kapi_napi_complete_done(struct kapi_netdev *nd, int done) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_NETDEV_H */
