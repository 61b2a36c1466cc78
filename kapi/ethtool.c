// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: ethtool_ops of the IPoIB net_device - driver info, link settings, ring sizes (read and set),
 * statistics (names and values are the core's) and receive CQ moderation.
 */
#include <linux/ethtool.h>
#include <linux/if_infiniband.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include "kapi.h"
#include "netdev_priv.h"

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

/* ethtool -G (rtnl held): the core resizes; a new link-layer address (the new UD QP's QPN)
 * is set as any address change (NETDEV_CHANGEADDR). */
static int kapi_et_set_ring(struct net_device *dev, struct ethtool_ringparam *r,
			    struct kernel_ethtool_ringparam *kr, struct netlink_ext_ack *ack)
{
	u8 addr[INFINIBAND_ALEN];
	const char *why = NULL;
	int rc;

	BUILD_BUG_ON(INFINIBAND_ALEN != 20);
	/* the current address: the core writes addr only when it has an interface */
	memcpy(addr, dev->dev_addr, INFINIBAND_ALEN);
	rc = ipoib_core_if_set_rings(core_of(dev), r->tx_pending, r->rx_pending, addr, &why);
	if (memcmp(dev->dev_addr, addr, INFINIBAND_ALEN)) {
		dev_addr_set(dev, addr);
		/* also drops our neighbour entries: our next packet to a peer is an ARP request
		 * or NS that carries the new address. (A gratuitous ARP sent now would be lost:
		 * the carrier is off until the broadcast join, and the qdisc with it.) */
		call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
	}
	if (rc && why && ack)
		ack->_msg = why;	/* a static string, as NL_SET_ERR_MSG's */
	return rc;
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
	/* u64 and kapi_u64 are both 64-bit unsigned (long long vs long); the kernel is built
	 * with -fno-strict-aliasing */
	BUILD_BUG_ON(sizeof(*data) != sizeof(kapi_u64));
	ipoib_core_if_stat_values(core_of(dev), (kapi_u64 *)data, ipoib_core_if_stat_count(core_of(dev)));
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

const struct ethtool_ops kapi_et_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS | ETHTOOL_COALESCE_RX_MAX_FRAMES,
	.get_coalesce = kapi_et_get_coalesce,
	.set_coalesce = kapi_et_set_coalesce,
	.get_drvinfo = kapi_et_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = kapi_et_link,
	.get_ringparam = kapi_et_ring,
	.set_ringparam = kapi_et_set_ring,
	.get_sset_count = kapi_et_sset_count,
	.get_strings = kapi_et_strings,
	.get_ethtool_stats = kapi_et_stats,
};
