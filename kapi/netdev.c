// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: the IPoIB net_device - net_device_ops and header_ops, allocation, the queue and
 * carrier (netdev_reg.c: registration and freeing; napi.c: NAPI and the one work item;
 * ethtool.c, sysfs.c and skb.c hold the rest). Every callback goes
 * straight to the core with the core's tagged context; the values the netdev gets come from
 * the core (kapi_netdev_setup), and so does the rule for when the work runs.
 */
#include <linux/bottom_half.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/rtnetlink.h>
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include "kapi.h"
#include "compat.h"
#include "netdev_priv.h"

/* ---- net_device_ops ---- */
static int kapi_nd_open(struct net_device *dev)
{
	return ipoib_core_if_open(core_of(dev));
}

static int kapi_nd_stop(struct net_device *dev)
{
	return ipoib_core_if_stop(core_of(dev));
}

static netdev_tx_t kapi_nd_xmit(struct sk_buff *skb, struct net_device *dev)
{
	ipoib_core_if_xmit(core_of(dev), (struct kapi_skb *)skb);
	return NETDEV_TX_OK;
}

static void kapi_nd_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	ipoib_core_if_tx_timeout(core_of(dev));
}

static void kapi_nd_set_rx_mode(struct net_device *dev)
{
	ipoib_core_if_rx_mode(core_of(dev));
}

static int kapi_nd_change_mtu(struct net_device *dev, int mtu)
{
	int ret = ipoib_core_if_change_mtu(core_of(dev), mtu);

	if (!ret)
		dev->mtu = mtu;
	return ret;
}

static void kapi_nd_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *st)
{
	struct kapi_stats64 s = {};

	ipoib_core_if_stats(core_of(dev), &s);
	st->rx_packets = s.rx_packets;
	st->tx_packets = s.tx_packets;
	st->rx_bytes = s.rx_bytes;
	st->tx_bytes = s.tx_bytes;
	st->rx_errors = s.rx_errors;
	st->tx_errors = s.tx_errors;
	st->rx_dropped = s.rx_dropped;
	st->tx_dropped = s.tx_dropped;
	st->multicast = s.multicast;
}

/* The offloads the core rules on (kapi_netdev.h), in NETIF_F_* and in the shim's bits. */
static const struct { netdev_features_t nf; u32 kf; } kapi_feat_map[] = {
	{ NETIF_F_IP_CSUM, KAPI_FEAT_IP_CSUM },	{ NETIF_F_IPV6_CSUM, KAPI_FEAT_IPV6_CSUM },
	{ NETIF_F_HW_CSUM, KAPI_FEAT_HW_CSUM },	{ NETIF_F_RXCSUM, KAPI_FEAT_RXCSUM },
	{ NETIF_F_TSO, KAPI_FEAT_TSO },		{ NETIF_F_TSO6, KAPI_FEAT_TSO6 },
	{ NETIF_F_SG, KAPI_FEAT_SG },
};

static netdev_features_t kapi_feat_to_nf(u32 kf)
{
	netdev_features_t nf = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kapi_feat_map); i++)
		if (kf & kapi_feat_map[i].kf)
			nf |= kapi_feat_map[i].nf;
	return nf;
}

static netdev_features_t kapi_nd_fix_features(struct net_device *dev, netdev_features_t features)
{
	u32 in = 0, out;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kapi_feat_map); i++)
		if (features & kapi_feat_map[i].nf)
			in |= kapi_feat_map[i].kf;
	out = ipoib_core_if_fix_features(core_of(dev), in);
	/* The core may also set a bit that is not toggleable (RXCSUM, shown "on [fixed]"). */
	for (i = 0; i < ARRAY_SIZE(kapi_feat_map); i++)
		if (!(out & kapi_feat_map[i].kf))
			features &= ~kapi_feat_map[i].nf;
	return features | kapi_feat_to_nf(out);
}

/* `ip link` shows a P_Key child as CHILD@PARENT: the parent the core gave at allocation.
 * Children are deleted before their parent (link.c), so the pointer outlives every caller. */
static int kapi_nd_get_iflink(const struct net_device *dev)
{
	const struct kapi_netdev_priv *p = netdev_priv(dev);

	return p->parent ? READ_ONCE(p->parent->ifindex) : READ_ONCE(dev->ifindex);
}

const struct net_device_ops kapi_nd_ops = {
	.ndo_open = kapi_nd_open,
	.ndo_stop = kapi_nd_stop,
	.ndo_start_xmit = kapi_nd_xmit,
	.ndo_tx_timeout = kapi_nd_tx_timeout,
	.ndo_set_rx_mode = kapi_nd_set_rx_mode,
	.ndo_change_mtu = kapi_nd_change_mtu,
	.ndo_fix_features = kapi_nd_fix_features,
	.ndo_get_stats64 = kapi_nd_get_stats64,
	.ndo_get_iflink = kapi_nd_get_iflink,
};

/* ---- header_ops ---- */
static int kapi_hdr_create(struct sk_buff *skb, struct net_device *dev, unsigned short type,
			   const void *daddr, const void *saddr, unsigned int len)
{
	return ipoib_core_if_header_create(core_of(dev), (struct kapi_skb *)skb, type, daddr);
}

/*
 * No .parse: dev_parse_header()'s callers give it 8 bytes (nfnetlink_log's and nfnetlink_queue's
 * hw_addr[8], AF_PACKET's sockaddr_ll.sll_addr[8]) and our address is 20 (RFC 4391 §9.1.1);
 * raw captures still see the source in the pseudo header.
 */
static const struct header_ops kapi_hdr_ops = {
	.create = kapi_hdr_create,
};

/* ---- NAPI and work ---- */
static int kapi_napi_poll(struct napi_struct *napi, int budget)
{
	struct kapi_netdev_priv *p = container_of(napi, struct kapi_netdev_priv, napi);

	return ipoib_core_if_poll(p->core, budget);
}

static void kapi_nd_work(struct work_struct *w)
{
	struct kapi_netdev_priv *p = container_of(to_delayed_work(w), struct kapi_netdev_priv, work);

	ipoib_core_if_work(p->core);
}

void kapi_nd_setup(struct net_device *dev)
{
	dev->netdev_ops = &kapi_nd_ops;
	dev->header_ops = &kapi_hdr_ops;
	dev->ethtool_ops = &kapi_et_ops;
	dev->type = ARPHRD_INFINIBAND;
	dev->flags = IFF_BROADCAST | IFF_MULTICAST;
	dev->watchdog_timeo = HZ;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	netif_keep_dst(dev);
}

struct kapi_netdev *kapi_netdev_alloc(const struct kapi_netdev_setup *s, struct kapi_ib_device *ibd,
				      struct kapi_ctx *core)
{
	struct ib_device *ib = (struct ib_device *)ibd;
	struct kapi_netdev_priv *p;
	struct net_device *dev;

	if (s->adopt) {
		/* rtnl_create_link() made it with kapi_link_ops (our setup and priv size). */
		dev = to_nd(s->adopt);
	} else {
		dev = alloc_netdev(sizeof(*p), s->name, NET_NAME_UNKNOWN, kapi_nd_setup);
		if (!dev)
			return NULL;
	}
	p = netdev_priv(dev);
	p->core = core;
	p->ib = ib;
	p->owner = s->owner;
	p->parent = s->parent ? to_nd(s->parent) : NULL;
	p->adopted = s->adopt != NULL;
	INIT_DELAYED_WORK(&p->work, kapi_nd_work);
	netif_napi_add(dev, &p->napi, kapi_napi_poll);
	kapi_napi_kick_init(p);
	dev->hard_header_len = s->hard_header_len;
	dev->addr_len = s->addr_len;
	dev->mtu = s->mtu;
	dev->min_mtu = 68;
	dev->max_mtu = s->max_mtu;
	/*
	 * alloc_netdev_mqs() marks a device whose setup left tx_queue_len 0 as IFF_NO_QUEUE
	 * (noqueue qdisc, no backpressure); the core gives a real length, so undo that.
	 */
	dev->tx_queue_len = s->tx_queue_len;
	if (s->tx_queue_len)
		dev->priv_flags &= ~IFF_NO_QUEUE;
	dev->hw_features = kapi_feat_to_nf(s->hw_features);
	dev->features |= dev->hw_features;	/* register_netdevice asks ndo_fix_features */
	dev->dev_port = s->dev_port;
	dev->dev_id = s->dev_port;
	memcpy(dev->broadcast, s->broadcast, s->addr_len);
	dev_addr_set(dev, s->dev_addr);
	dev->sysfs_groups[0] = p->parent ? &kapi_nd_child_group : &kapi_nd_group;
	/*
	 * Kind "ipoib" when it is ours: `ip -d link` shows P_Key and mode, `ip link set type ipoib
	 * mode` changes it, on a port's own netdev as on a child (as in-tree); `ip link del` only
	 * deletes children (link.c). A child lives where its parent is.
	 */
	if (!p->adopted) {
		dev->rtnl_link_ops = kapi_link_ops_if_registered();
		if (p->parent)
			dev_net_set(dev, dev_net(p->parent));
	}
	SET_NETDEV_DEV(dev, ib->dev.parent);
	netif_carrier_off(dev);
	return (struct kapi_netdev *)dev;
}

const char *kapi_netdev_name(const struct kapi_netdev *nd)
{
	return to_nd(nd)->name;
}

void kapi_netdev_set_dev_addr(struct kapi_netdev *nd, const u8 *addr)
{
	struct net_device *dev = to_nd(nd);

	/*
	 * Not registered yet (the caller may hold rtnl already): nobody knows the device, so
	 * there is nobody to notify (the notifier chain would see a device that does not
	 * exist, named by its "ib%d" template).
	 */
	if (dev->reg_state == NETREG_UNINITIALIZED) {
		dev_addr_set(dev, addr);
		return;
	}
	rtnl_lock();
	dev_addr_set(dev, addr);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
	rtnl_unlock();
}

int kapi_netdev_set_dev_addr_trylock(struct kapi_netdev *nd, const u8 *addr)
{
	struct net_device *dev = to_nd(nd);

	if (!rtnl_trylock())
		return -EAGAIN;
	dev_addr_set(dev, addr);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
	rtnl_unlock();
	return 0;
}

void kapi_netdev_set_broadcast(struct kapi_netdev *nd, const u8 *addr)
{
	netif_addr_lock_bh(to_nd(nd));
	memcpy(to_nd(nd)->broadcast, addr, to_nd(nd)->addr_len);
	netif_addr_unlock_bh(to_nd(nd));
}

void kapi_netdev_set_max_mtu(struct kapi_netdev *nd, u32 mtu)
{
	to_nd(nd)->max_mtu = mtu;
}

int kapi_netdev_set_mtu_locked(struct kapi_netdev *nd, u32 mtu)
{
	ASSERT_RTNL();
	return dev_set_mtu(to_nd(nd), mtu);
}

u32 kapi_netdev_mtu(const struct kapi_netdev *nd)
{
	return READ_ONCE(to_nd(nd)->mtu);
}

int kapi_rtnl_trylock(void)
{
	return rtnl_trylock();
}

void kapi_rtnl_unlock(void)
{
	rtnl_unlock();
}

void kapi_netdev_update_features(struct kapi_netdev *nd)
{
	ASSERT_RTNL();
	netdev_update_features(to_nd(nd));
}

void kapi_netdev_carrier(struct kapi_netdev *nd, int on)
{
	if (on)
		netif_carrier_on(to_nd(nd));
	else
		netif_carrier_off(to_nd(nd));
}

void kapi_netdev_start_queue(struct kapi_netdev *nd)
{
	netif_start_queue(to_nd(nd));
}

void kapi_netdev_stop_queue(struct kapi_netdev *nd)
{
	netif_stop_queue(to_nd(nd));
}

void kapi_netdev_wake_queue(struct kapi_netdev *nd)
{
	netif_wake_queue(to_nd(nd));
}

int kapi_netdev_queue_stopped(struct kapi_netdev *nd)
{
	return netif_queue_stopped(to_nd(nd));
}

int kapi_netdev_admin_up(const struct kapi_netdev *nd)
{
	return !!(to_nd((struct kapi_netdev *)nd)->flags & IFF_UP);
}

/* The same lock as kapi_netdev_xmit_lock (one idiom for both): every xmit holds queue 0's
 * _xmit_lock whatever the qdisc; netif_tx_lock_bh took it too (and the FROZEN bit and
 * tx_global_lock, which a barrier does not need). */
void kapi_netdev_tx_barrier(struct kapi_netdev *nd)
{
	kapi_netdev_xmit_lock(nd);
	kapi_netdev_xmit_unlock(nd);
}

/* alloc_netdev: one tx queue, so queue 0's lock is the one every xmit holds. */
void kapi_netdev_xmit_lock(struct kapi_netdev *nd)
{
	__netif_tx_lock_bh(netdev_get_tx_queue(to_nd(nd), 0));
}

void kapi_netdev_xmit_unlock(struct kapi_netdev *nd)
{
	__netif_tx_unlock_bh(netdev_get_tx_queue(to_nd(nd), 0));
}

int kapi_netdev_mc_list(struct kapi_netdev *nd, u8 *out, int max, int addr_len)
{
	struct net_device *dev = to_nd(nd);
	struct netdev_hw_addr *ha;
	int n = 0;

	netif_addr_lock_bh(dev);
	netdev_for_each_mc_addr(ha, dev) {
		if (n == max)
			break;
		memcpy(out + n * addr_len, ha->addr, addr_len);
		n++;
	}
	netif_addr_unlock_bh(dev);
	return n;
}
