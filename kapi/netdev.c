// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: the IPoIB net_device - ops tables (net_device_ops, header_ops, ethtool_ops, sysfs),
 * NAPI, the one work item, skb accessors. Every callback goes straight to the core with the
 * core's object as context; the values the netdev gets come from the core (kapi_netdev_setup).
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/rtnetlink.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include "kapi.h"
#include "compat.h"
#include "netdev_priv.h"

static struct net_device *to_nd(const struct kapi_netdev *n)
{
	return (struct net_device *)n;
}

static struct kapi_netdev_priv *nd_priv(const struct net_device *dev)
{
	return netdev_priv(dev);
}

static void *core_of(const struct net_device *dev)
{
	return nd_priv(dev)->core;
}

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

const struct net_device_ops kapi_nd_ops = {
	.ndo_open = kapi_nd_open,
	.ndo_stop = kapi_nd_stop,
	.ndo_start_xmit = kapi_nd_xmit,
	.ndo_tx_timeout = kapi_nd_tx_timeout,
	.ndo_set_rx_mode = kapi_nd_set_rx_mode,
	.ndo_change_mtu = kapi_nd_change_mtu,
	.ndo_get_stats64 = kapi_nd_get_stats64,
};

/* ---- header_ops ---- */
static int kapi_hdr_create(struct sk_buff *skb, struct net_device *dev, unsigned short type,
			   const void *daddr, const void *saddr, unsigned int len)
{
	return ipoib_core_if_header_create(core_of(dev), (struct kapi_skb *)skb, type, daddr);
}

/* The source hw address the receive path left in the pseudo header (zeros when unknown). */
static int kapi_hdr_parse(const struct sk_buff *skb, unsigned char *haddr)
{
	memcpy(haddr, skb_mac_header(skb), INFINIBAND_ALEN);
	return INFINIBAND_ALEN;
}

/* 6.12.y: header_ops.parse also gets the device (compat.h). */
static int kapi_hdr_parse_dev(const struct sk_buff *skb, const struct net_device *dev,
			      unsigned char *haddr)
{
	return kapi_hdr_parse(skb, haddr);
}

static const struct header_ops kapi_hdr_ops = {
	.create = kapi_hdr_create,
	.parse = kapi_hdr_parse_pick(kapi_hdr_parse_dev, kapi_hdr_parse),
};

/* ---- ethtool ---- */
static void kapi_et_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	struct ib_device *ib = nd_priv(dev)->ib;

	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	if (ib->dev.parent)
		strscpy(info->bus_info, dev_name(ib->dev.parent), sizeof(info->bus_info));
	ib_get_device_fw_str(ib, info->fw_version);
}

static int kapi_et_link(struct net_device *dev, struct ethtool_link_ksettings *cmd)
{
	u32 speed = netif_carrier_ok(dev) ? ipoib_core_if_speed(core_of(dev)) : 0;

	cmd->base.speed = speed ? speed : SPEED_UNKNOWN;
	cmd->base.duplex = speed ? DUPLEX_FULL : DUPLEX_UNKNOWN;
	cmd->base.port = PORT_OTHER;
	cmd->base.phy_address = 0xff;
	cmd->base.autoneg = AUTONEG_ENABLE;
	return 0;
}

static void kapi_et_ring(struct net_device *dev, struct ethtool_ringparam *r,
			 struct kernel_ethtool_ringparam *kr, struct netlink_ext_ack *ack)
{
	u32 tx, rx, max;

	ipoib_core_if_ring_sizes(core_of(dev), &tx, &rx, &max);
	r->rx_max_pending = max;
	r->tx_max_pending = max;
	r->rx_pending = rx;
	r->tx_pending = tx;
}

static int kapi_et_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? ipoib_core_if_stat_count(core_of(dev)) : -EOPNOTSUPP;
}

static void kapi_et_strings(struct net_device *dev, u32 sset, u8 *data)
{
	int i, n;

	if (sset != ETH_SS_STATS)
		return;
	n = ipoib_core_if_stat_count(core_of(dev));
	for (i = 0; i < n; i++)
		ethtool_sprintf(&data, "%s", ipoib_core_if_stat_name(core_of(dev), i));
}

static void kapi_et_stats(struct net_device *dev, struct ethtool_stats *st, u64 *data)
{
	int i, n = ipoib_core_if_stat_count(core_of(dev));

	for (i = 0; i < n; i++)
		data[i] = ipoib_core_if_stat_value(core_of(dev), i);
}

static int kapi_et_get_coalesce(struct net_device *dev, struct ethtool_coalesce *c,
				struct kernel_ethtool_coalesce *kc, struct netlink_ext_ack *ack)
{
	ipoib_core_if_get_coalesce(core_of(dev), &c->rx_coalesce_usecs, &c->rx_max_coalesced_frames);
	return 0;
}

static int kapi_et_set_coalesce(struct net_device *dev, struct ethtool_coalesce *c,
				struct kernel_ethtool_coalesce *kc, struct netlink_ext_ack *ack)
{
	return ipoib_core_if_set_coalesce(core_of(dev), c->rx_coalesce_usecs, c->rx_max_coalesced_frames);
}

static const struct ethtool_ops kapi_et_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS | ETHTOOL_COALESCE_RX_MAX_FRAMES,
	.get_coalesce = kapi_et_get_coalesce,
	.set_coalesce = kapi_et_set_coalesce,
	.get_drvinfo = kapi_et_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = kapi_et_link,
	.get_ringparam = kapi_et_ring,
	.get_sset_count = kapi_et_sset_count,
	.get_strings = kapi_et_strings,
	.get_ethtool_stats = kapi_et_stats,
};

/* ---- sysfs: mode, pkey, umcast ---- */
static ssize_t mode_show(struct device *d, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "datagram\n");
}

static ssize_t mode_store(struct device *d, struct device_attribute *attr, const char *buf, size_t len)
{
	int ret = ipoib_core_if_mode_store(core_of(to_net_dev(d)), buf, len);

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
static const struct attribute_group kapi_nd_group = { .attrs = kapi_nd_attrs };

static struct attribute *kapi_nd_child_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_pkey.attr,
	&dev_attr_umcast.attr,
	&dev_attr_parent.attr,
	NULL,
};
static const struct attribute_group kapi_nd_child_group = { .attrs = kapi_nd_child_attrs };

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

struct kapi_netdev *kapi_netdev_alloc(const struct kapi_netdev_setup *s, struct kapi_ib_device *ibd, void *core)
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
	dev->dev_port = s->dev_port;
	dev->dev_id = s->dev_port;
	memcpy(dev->broadcast, s->broadcast, s->addr_len);
	dev_addr_set(dev, s->dev_addr);
	dev->sysfs_groups[0] = p->parent ? &kapi_nd_child_group : &kapi_nd_group;
	if (p->parent) {
		/* A child lives where its parent is; `ip link del` works on it when the kind is ours. */
		if (!p->adopted) {
			dev_net_set(dev, dev_net(p->parent));
			dev->rtnl_link_ops = kapi_link_ops_if_registered();
		}
	}
	SET_NETDEV_DEV(dev, ib->dev.parent);
	netif_carrier_off(dev);
	return (struct kapi_netdev *)dev;
}

void kapi_netdev_free(struct kapi_netdev *nd)
{
	struct net_device *dev = to_nd(nd);

	/* A net_device rtnl allocated and never registered is freed by rtnl_newlink_create(). */
	if (nd_priv(dev)->adopted && dev->reg_state == NETREG_UNINITIALIZED)
		return;
	netif_napi_del(&nd_priv(dev)->napi);
	/* Under rtnl right after unregister_netdevice() this only marks it: netdev_run_todo frees. */
	free_netdev(dev);
}

int kapi_netdev_register(struct kapi_netdev *nd)
{
	return register_netdev(to_nd(nd));
}

void kapi_netdev_unregister(struct kapi_netdev *nd)
{
	unregister_netdev(to_nd(nd));
}

int kapi_netdev_register_locked(struct kapi_netdev *nd)
{
	ASSERT_RTNL();
	return register_netdevice(to_nd(nd));
}

void kapi_netdev_unregister_locked(struct kapi_netdev *nd)
{
	ASSERT_RTNL();
	unregister_netdevice(to_nd(nd));
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

int kapi_netdev_set_mtu_trylock(struct kapi_netdev *nd, u32 mtu)
{
	int ret;

	if (!rtnl_trylock())
		return -EAGAIN;
	ret = dev_set_mtu(to_nd(nd), mtu);
	rtnl_unlock();
	return ret;
}

void kapi_msleep(unsigned int ms)
{
	msleep(ms);
}

kapi_u64 kapi_now_ms(void)
{
	return jiffies64_to_msecs(get_jiffies_64());
}

u32 kapi_netdev_mtu(const struct kapi_netdev *nd)
{
	return READ_ONCE(to_nd(nd)->mtu);
}

void kapi_netdev_set_max_mtu(struct kapi_netdev *nd, u32 mtu)
{
	to_nd(nd)->max_mtu = mtu;
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

int kapi_netdev_is_up(struct kapi_netdev *nd)
{
	return netif_running(to_nd(nd));
}

void kapi_netdev_tx_lock_bh(struct kapi_netdev *nd)
{
	netif_tx_lock_bh(to_nd(nd));
}

void kapi_netdev_tx_unlock_bh(struct kapi_netdev *nd)
{
	netif_tx_unlock_bh(to_nd(nd));
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

int kapi_netdev_allmulti(struct kapi_netdev *nd)
{
	return !!(to_nd(nd)->flags & IFF_ALLMULTI);
}

/*
 * Requests only bring the work forward: a later deadline never replaces an earlier one (a
 * port-event flush asked for now must not wait behind a join back-off asked for later).
 * The work re-arms whatever it still needs when it runs.
 */
void kapi_netdev_schedule_work(struct kapi_netdev *nd, unsigned int delay_ms)
{
	struct delayed_work *w = &nd_priv(to_nd(nd))->work;
	unsigned long delay = msecs_to_jiffies(delay_ms);

	if (!delay) {
		mod_delayed_work(system_wq, w, 0);
		return;
	}
	if (queue_delayed_work(system_wq, w, delay))
		return;		/* was idle: queued with our deadline */
	/* Pending: move it only if ours is earlier (racy read, worst case an early run). */
	if (timer_pending(&w->timer) && time_before(jiffies + delay, READ_ONCE(w->timer.expires)))
		mod_delayed_work(system_wq, w, delay);
}

void kapi_netdev_cancel_work(struct kapi_netdev *nd)
{
	cancel_delayed_work_sync(&nd_priv(to_nd(nd))->work);
}

void kapi_napi_enable(struct kapi_netdev *nd)
{
	napi_enable(&nd_priv(to_nd(nd))->napi);
}

void kapi_napi_disable(struct kapi_netdev *nd)
{
	napi_disable(&nd_priv(to_nd(nd))->napi);
}

void kapi_napi_schedule(struct kapi_netdev *nd)
{
	napi_schedule(&nd_priv(to_nd(nd))->napi);
}

int kapi_napi_complete_done(struct kapi_netdev *nd, int done)
{
	return napi_complete_done(&nd_priv(to_nd(nd))->napi, done);
}

/* ---- skb ---- */
static struct sk_buff *to_skb(const struct kapi_skb *s)
{
	return (struct sk_buff *)s;
}

struct kapi_skb *kapi_skb_alloc(struct kapi_netdev *nd, u32 size, u32 headroom, unsigned int gfp)
{
	struct sk_buff *skb = __netdev_alloc_skb(to_nd(nd), size + headroom, (__force gfp_t)gfp);

	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	return (struct kapi_skb *)skb;
}

void kapi_skb_free(struct kapi_skb *skb)
{
	dev_kfree_skb_any(to_skb(skb));
}

void kapi_skb_consume(struct kapi_skb *skb)
{
	dev_consume_skb_any(to_skb(skb));
}

u8 *kapi_skb_data(struct kapi_skb *skb)
{
	return to_skb(skb)->data;
}

u32 kapi_skb_len(const struct kapi_skb *skb)
{
	return to_skb(skb)->len;
}

u32 kapi_skb_headlen(const struct kapi_skb *skb)
{
	return skb_headlen(to_skb(skb));
}

u32 kapi_skb_headroom(const struct kapi_skb *skb)
{
	return skb_headroom(to_skb(skb));
}

u8 *kapi_skb_put(struct kapi_skb *skb, u32 len)
{
	return skb_put(to_skb(skb), len);
}

u8 *kapi_skb_push(struct kapi_skb *skb, u32 len)
{
	return skb_push(to_skb(skb), len);
}

u8 *kapi_skb_pull(struct kapi_skb *skb, u32 len)
{
	return skb_pull(to_skb(skb), len);
}

int kapi_skb_linearize(struct kapi_skb *skb)
{
	return skb_linearize(to_skb(skb));
}

void kapi_skb_gro_receive(struct kapi_netdev *nd, struct kapi_skb *s, u16 proto, enum kapi_pkt_type type,
			  u32 mac_len)
{
	struct sk_buff *skb = to_skb(s);
	struct net_device *dev = to_nd(nd);

	skb->dev = dev;
	skb->protocol = htons(proto);
	skb->pkt_type = type;
	skb_reset_mac_header(skb);
	skb_pull(skb, mac_len);
	skb_reset_network_header(skb);
	if (dev->features & NETIF_F_RXCSUM)
		skb->ip_summed = CHECKSUM_NONE;
	napi_gro_receive(&nd_priv(dev)->napi, skb);
}

void kapi_skb_requeue(struct kapi_skb *skb)
{
	dev_queue_xmit(to_skb(skb));
}
