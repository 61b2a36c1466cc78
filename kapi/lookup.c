// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: questions rdma_cm's netdev lookup asks about one netdev (include/kapi_lookup.h):
 * its master, and whether it or an upper device of it has an IP address. The choice of
 * interface is the core's (ipoib_lookup.h). Everything here runs under rcu_read_lock only,
 * so the core may call it with a spinlock held.
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/socket.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/addrconf.h>
#include "kapi.h"

static struct net_device *to_nd(const struct kapi_netdev *n)
{
	return (struct net_device *)n;
}

struct kapi_netdev *kapi_netdev_hold_master(struct kapi_netdev *nd)
{
	struct net_device *dev = to_nd(nd);
	struct net_device *master;

	rcu_read_lock();
	master = netdev_master_upper_dev_get_rcu(dev);
	dev = master ? master : dev;
	dev_hold(dev);
	rcu_read_unlock();
	return (struct kapi_netdev *)dev;
}

/* Caller holds rcu_read_lock. The address is looked up in dev's own namespace. */
static bool dev_has_addr_rcu(struct net_device *dev, const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET: {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		struct in_device *idev = __in_dev_get_rcu(dev);

		/* scope host: any address configured on dev, like a local-address check */
		return idev && inet_confirm_addr(dev_net(dev), idev, 0, in->sin_addr.s_addr,
						 RT_SCOPE_HOST);
	}
	case AF_INET6:
		if (!IS_ENABLED(CONFIG_IPV6))
			return false;
		return ipv6_chk_addr(dev_net(dev), &((const struct sockaddr_in6 *)sa)->sin6_addr,
				     dev, 1);
	default:
		return false;
	}
}

struct upper_walk {
	const struct sockaddr *sa;
	struct net_device *found;
};

static int upper_has_addr(struct net_device *upper, struct netdev_nested_priv *priv)
{
	struct upper_walk *w = priv->data;

	if (!dev_has_addr_rcu(upper, w->sa))
		return 0;
	w->found = upper;
	return 1;	/* stop the walk */
}

struct kapi_netdev *kapi_netdev_hold_by_addr(struct kapi_netdev *nd, const struct kapi_sockaddr *addr)
{
	struct upper_walk w = { .sa = (const struct sockaddr *)addr };
	struct netdev_nested_priv priv = { .data = &w };
	struct net_device *dev = to_nd(nd);

	if (!addr)
		return NULL;
	rcu_read_lock();
	if (dev_has_addr_rcu(dev, w.sa))
		w.found = dev;
	else
		netdev_walk_all_upper_dev_rcu(dev, upper_has_addr, &priv);
	if (w.found)
		dev_hold(w.found);
	rcu_read_unlock();
	return (struct kapi_netdev *)w.found;
}

void kapi_netdev_put(struct kapi_netdev *nd)
{
	dev_put(to_nd(nd));
}
