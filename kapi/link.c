// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: P_Key child interfaces. The rtnl link kind "ipoib" (`ip link add link ib0 name
 * ib0.8001 type ipoib pkey 0x8001`, changelink, dellink, fill_info) and the sysfs files
 * create_child/delete_child (on a port's netdev) and parent (on a child). Every decision
 * is the core's; this file only moves attributes and takes rtnl where the kernel wants it.
 *
 * sysfs stores must not block on rtnl: unregistering the parent holds rtnl while it waits
 * for running stores of the parent's attributes to finish. They use rtnl_trylock() and
 * restart the syscall, as the in-tree driver does.
 */
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>
#include "kapi.h"
#include "netdev_priv.h"

static ssize_t child_store(struct device *d, int create, const char *buf, size_t len)
{
	struct net_device *dev = to_net_dev(d);
	int ret;

	if (!ns_capable(dev_net(dev)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (!rtnl_trylock())
		return restart_syscall();
	if (dev->reg_state != NETREG_REGISTERED)
		ret = -ENODEV;
	else
		ret = ipoib_core_child_sysfs(nd_priv(dev)->owner, create, buf, len);
	rtnl_unlock();
	return ret ? ret : len;
}

static ssize_t create_child_store(struct device *d, struct device_attribute *attr, const char *buf, size_t len)
{
	return child_store(d, 1, buf, len);
}
DEVICE_ATTR_WO(create_child);

static ssize_t delete_child_store(struct device *d, struct device_attribute *attr, const char *buf, size_t len)
{
	return child_store(d, 0, buf, len);
}
DEVICE_ATTR_WO(delete_child);

static ssize_t parent_show(struct device *d, struct device_attribute *attr, char *buf)
{
	struct net_device *parent = nd_priv(to_net_dev(d))->parent;

	return sysfs_emit(buf, "%s\n", parent ? parent->name : "");
}
DEVICE_ATTR_RO(parent);

/* ---- rtnl_link_ops ---- */
static const struct nla_policy kapi_link_policy[IFLA_IPOIB_MAX + 1] = {
	[IFLA_IPOIB_PKEY] = { .type = NLA_U16 },
	[IFLA_IPOIB_MODE] = { .type = NLA_U16 },
	[IFLA_IPOIB_UMCAST] = { .type = NLA_U16 },
};

static void kapi_link_read(struct nlattr *data[], struct kapi_link_args *a)
{
	if (!data)
		return;
	if (data[IFLA_IPOIB_PKEY]) {
		a->has_pkey = 1;
		a->pkey = nla_get_u16(data[IFLA_IPOIB_PKEY]);
	}
	if (data[IFLA_IPOIB_MODE]) {
		a->has_mode = 1;
		a->mode = nla_get_u16(data[IFLA_IPOIB_MODE]);
	}
	if (data[IFLA_IPOIB_UMCAST]) {
		a->has_umcast = 1;
		a->umcast = nla_get_u16(data[IFLA_IPOIB_UMCAST]);
	}
}

static int kapi_link_newlink(struct net *src_net, struct net_device *dev, struct nlattr *tb[],
			     struct nlattr *data[], struct netlink_ext_ack *extack)
{
	struct kapi_link_args a = {};
	struct net_device *parent = NULL;
	struct kapi_ctx *owner = NULL;
	int is_child = 0;

	if (tb[IFLA_LINK]) {
		a.has_link = 1;
		parent = __dev_get_by_index(src_net, nla_get_u32(tb[IFLA_LINK]));
		/* Only our own netdevs carry our private area. */
		if (parent && parent->netdev_ops != &kapi_nd_ops)
			parent = NULL;
	}
	if (parent) {
		owner = nd_priv(parent)->owner;
		is_child = nd_priv(parent)->parent != NULL;
	}
	kapi_link_read(data, &a);
	return ipoib_core_child_newlink(owner, (struct kapi_netdev *)parent, is_child, (struct kapi_netdev *)dev, &a);
}

static void kapi_link_dellink(struct net_device *dev, struct list_head *head)
{
	struct kapi_netdev_priv *p = nd_priv(dev);

	/* A port's own netdev is never ours to delete (and has no link ops anyway). */
	if (!p->parent)
		return;
	/* Unregisters (unregister_netdevice, rtnl held) and tears the child down now. */
	ipoib_core_child_dellink(p->owner, p->core);
}

static int kapi_link_changelink(struct net_device *dev, struct nlattr *tb[], struct nlattr *data[],
				struct netlink_ext_ack *extack)
{
	struct kapi_link_args a = {};

	kapi_link_read(data, &a);
	return ipoib_core_if_changelink(nd_priv(dev)->core, &a);
}

static size_t kapi_link_get_size(const struct net_device *dev)
{
	return 3 * nla_total_size(sizeof(u16));
}

static int kapi_link_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct kapi_ctx *core = nd_priv(dev)->core;

	if (nla_put_u16(skb, IFLA_IPOIB_PKEY, ipoib_core_if_pkey(core)) ||
	    nla_put_u16(skb, IFLA_IPOIB_MODE, ipoib_core_if_mode(core)) ||
	    nla_put_u16(skb, IFLA_IPOIB_UMCAST, ipoib_core_if_umcast(core)))
		return -EMSGSIZE;
	return 0;
}

static struct rtnl_link_ops kapi_link_ops = {
	.kind = "ipoib",
	.netns_refund = true,	/* a dying namespace hands children back to init_net */
	.maxtype = IFLA_IPOIB_MAX,
	.policy = kapi_link_policy,
	.priv_size = sizeof(struct kapi_netdev_priv),
	.setup = kapi_nd_setup,
	.newlink = kapi_link_newlink,
	.dellink = kapi_link_dellink,
	.changelink = kapi_link_changelink,
	.get_size = kapi_link_get_size,
	.fill_info = kapi_link_fill_info,
};

static bool kapi_link_registered;

int kapi_link_register(void)
{
	int ret = rtnl_link_register(&kapi_link_ops);

	if (!ret)
		kapi_link_registered = true;
	return ret;
}

void kapi_link_unregister(void)
{
	if (kapi_link_registered)
		rtnl_link_unregister(&kapi_link_ops);
	kapi_link_registered = false;
}

struct rtnl_link_ops *kapi_link_ops_if_registered(void)
{
	return kapi_link_registered ? &kapi_link_ops : NULL;
}
