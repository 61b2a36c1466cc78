/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netdev_priv.h - shared by the shim's netdev.c, netdev_reg.c, napi.c, debugfs.c, ethtool.c,
 * sysfs.c, skb.c and link.c (never seen by C++): the private area of our net_devices, the ops/setup rtnl needs to allocate
 * one, the ethtool and sysfs tables netdev.c installs, and link.c's sysfs attributes.
 */
#ifndef KAPI_NETDEV_PRIV_H
#define KAPI_NETDEV_PRIV_H

#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include "kapi.h"

struct kapi_netdev_priv {
	struct kapi_ctx *core;		/* the core's Interface */
	struct kapi_ctx *owner;		/* the core's Port (create_child, newlink, dellink) */
	struct net_device *parent;	/* NULL for a port's own netdev */
	struct ib_device *ib;
	struct napi_struct napi;
	struct tasklet_struct napi_kick;	/* napi.c: NAPI scheduled from task context */
	struct delayed_work work;
	bool adopted;			/* allocated by rtnl_create_link(), not by us */
	bool registered;		/* register_netdevice() succeeded (kapi_netdev_free) */
};

static inline struct net_device *to_nd(const struct kapi_netdev *n)
{
	return (struct net_device *)n;
}

static inline struct kapi_netdev_priv *nd_priv(const struct net_device *dev)
{
	return netdev_priv(dev);
}

static inline struct kapi_ctx *core_of(const struct net_device *dev)
{
	return nd_priv(dev)->core;
}

extern const struct net_device_ops kapi_nd_ops;
void kapi_nd_setup(struct net_device *dev);

/* napi.c: the task-context kick beside the NAPI context (netdev.c's alloc, netdev_reg.c's free) */
void kapi_napi_kick_init(struct kapi_netdev_priv *p);
void kapi_napi_kick_kill(struct kapi_netdev_priv *p);

/* netdev_reg.c: the test knob debugfs.c publishes (ib_ipoib_cm/fail_child_register) */
#ifdef IPOIB_TEST_KNOBS
extern atomic_t kapi_fail_child_register;
#endif

/* ethtool.c, sysfs.c */
extern const struct ethtool_ops kapi_et_ops;
extern const struct attribute_group kapi_nd_group;
extern const struct attribute_group kapi_nd_child_group;

/* link.c */
extern struct device_attribute dev_attr_create_child;
extern struct device_attribute dev_attr_delete_child;
extern struct device_attribute dev_attr_parent;
struct rtnl_link_ops *kapi_link_ops_if_registered(void);

#endif
