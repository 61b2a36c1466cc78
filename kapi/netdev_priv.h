/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netdev_priv.h - shared between the shim's netdev.c and link.c (never seen by C++): the
 * private area of our net_devices, the ops/setup rtnl needs to allocate one, and the
 * sysfs attributes link.c adds to the groups netdev.c installs.
 */
#ifndef KAPI_NETDEV_PRIV_H
#define KAPI_NETDEV_PRIV_H

#include <linux/netdevice.h>
#include <linux/workqueue.h>

struct kapi_netdev_priv {
	void *core;			/* the core's Interface */
	void *owner;			/* the core's Port (create_child, newlink, dellink) */
	struct net_device *parent;	/* NULL for a port's own netdev */
	struct ib_device *ib;
	struct napi_struct napi;
	struct delayed_work work;
	bool adopted;			/* allocated by rtnl_create_link(), not by us */
};

extern const struct net_device_ops kapi_nd_ops;
void kapi_nd_setup(struct net_device *dev);

/* link.c */
extern struct device_attribute dev_attr_create_child;
extern struct device_attribute dev_attr_delete_child;
extern struct device_attribute dev_attr_parent;
struct rtnl_link_ops *kapi_link_ops_if_registered(void);

#endif
