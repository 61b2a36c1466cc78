// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: sysfs attributes of the IPoIB net_device - mode, pkey, umcast (values and parsing
 * are the core's), and the groups for a port's own netdev and for a P_Key child (link.c
 * adds create_child/delete_child and parent).
 */
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sysfs.h>
#include "kapi.h"
#include "netdev_priv.h"

static ssize_t mode_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", ipoib_core_if_mode_name(core_of(to_net_dev(d))));
}

/*
 * The mode changes the MTU and the features: rtnl, as every netdev change. Not blocking on it
 * (unregistering holds rtnl while it waits for running stores, link.c), and a device no
 * longer registered (being torn down) refuses the write before the core sees it.
 */
static ssize_t mode_store(struct device *d, struct device_attribute *attr, const char *buf, size_t len)
{
	struct net_device *dev = to_net_dev(d);
	int ret;

	if (!rtnl_trylock())
		return restart_syscall();
	if (dev->reg_state != NETREG_REGISTERED)
		ret = -ENODEV;
	else
		ret = ipoib_core_if_mode_store(core_of(dev), buf, len);
	rtnl_unlock();
	return ret ? ret : len;
}
static DEVICE_ATTR_RW(mode);

static ssize_t pkey_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", ipoib_core_if_pkey(core_of(to_net_dev(d))));
}
static DEVICE_ATTR_RO(pkey);

static ssize_t umcast_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", ipoib_core_if_umcast(core_of(to_net_dev(d))));
}

static ssize_t umcast_store(struct device *d, struct device_attribute *attr, const char *buf, size_t len)
{
	int ret = ipoib_core_if_umcast_store(core_of(to_net_dev(d)), buf, len);

	return ret ? ret : len;
}
static DEVICE_ATTR_RW(umcast);

/* A port's own netdev also has create_child/delete_child, a P_Key child its parent (link.c). */
static struct attribute *kapi_nd_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_pkey.attr,
	&dev_attr_umcast.attr,
	&dev_attr_create_child.attr,
	&dev_attr_delete_child.attr,
	NULL,
};
const struct attribute_group kapi_nd_group = { .attrs = kapi_nd_attrs };

static struct attribute *kapi_nd_child_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_pkey.attr,
	&dev_attr_umcast.attr,
	&dev_attr_parent.attr,
	NULL,
};
const struct attribute_group kapi_nd_child_group = { .attrs = kapi_nd_child_attrs };
