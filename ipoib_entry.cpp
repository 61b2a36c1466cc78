// SPDX-License-Identifier: GPL-2.0
// ipoib_entry.cpp - every C entry point of the core (kapi_entry.h), and nothing else. Each
// one turns the shim's tagged context back into its object with from_ctx<T>() (a wrong
// or stale context warns and does nothing) and makes one call into the core; no logic
// lives here.
#include "ipoib_device.h"
#include "core/cm/ipoib_srq.h"

using namespace ipoib;

namespace {

// A context that is not a live Interface: warned by from_ctx; the entry point answers as
// for a device that does nothing.
Interface *ifc(kapi_ctx *c) { return from_ctx<Interface>(c); }

LinkArgs link_args(const kapi_link_args &a)
{
	LinkArgs l;
	l.has_pkey = a.has_pkey;
	l.has_mode = a.has_mode;
	l.has_umcast = a.has_umcast;
	l.pkey = a.pkey;
	l.mode = a.mode;
	l.umcast = a.umcast;
	return l;
}

} // namespace

// ---- module, ib_client, rdma_cm lookup ----
extern "C" int ipoib_core_init(const kapi_params *params) noexcept { return kstd::to_errno(driver_load(*params)); }
extern "C" void ipoib_core_exit(void) noexcept { driver_unload(); }
extern "C" int ipoib_core_debug_level_write(const char *buf, kapi_size_t len) noexcept
{
	return kstd::to_errno(set_debug_level(StrView(buf, len)));
}
extern "C" int ipoib_core_debug_level_read(void) noexcept { return __atomic_load_n(&g_debug_level, __ATOMIC_RELAXED); }
extern "C" int ipoib_core_add_device(kapi_ctx *drv, kapi_ib_device *ib, void **ctx) noexcept
{
	Driver *d = from_ctx<Driver>(drv);
	if (!d)
		return -KAPI_EINVAL;
	Device *dev = nullptr;
	Status s = d->add_device(ib, dev);
	*ctx = dev;
	return kstd::to_errno(s);
}
extern "C" void ipoib_core_remove_device(kapi_ctx *drv, kapi_ib_device *, void *ctx) noexcept
{
	if (Driver *d = from_ctx<Driver>(drv))
		d->remove_device(static_cast<Device *>(ctx));
}
// dev_ctx is ib_core's client data for the device: the Device ipoib_core_add_device returned.
extern "C" kapi_netdev *ipoib_core_get_netdev(void *dev_ctx, u32 port, u16 pkey, const u8 *gid,
					      const kapi_sockaddr *addr) noexcept
{
	return static_cast<Device *>(dev_ctx)->get_netdev(port, pkey, gid, addr);
}

// ---- net_device_ops, header_ops, NAPI, work ----
extern "C" int ipoib_core_if_open(kapi_ctx *c) noexcept
{
	Interface *i = ifc(c);
	return i ? kstd::to_errno(i->open()) : -KAPI_ENODEV;
}
extern "C" int ipoib_core_if_stop(kapi_ctx *c) noexcept
{
	if (Interface *i = ifc(c))
		i->stop();
	return 0;
}
extern "C" int ipoib_core_if_xmit(kapi_ctx *c, kapi_skb *skb) noexcept
{
	if (Interface *i = ifc(c))
		i->xmit(skb);
	else
		kapi_skb_free(skb);
	return 0;
}
extern "C" void ipoib_core_if_tx_timeout(kapi_ctx *c) noexcept
{
	if (Interface *i = ifc(c))
		i->tx_timeout();
}
extern "C" void ipoib_core_if_rx_mode(kapi_ctx *c) noexcept
{
	if (Interface *i = ifc(c))
		i->rx_mode();
}
extern "C" int ipoib_core_if_change_mtu(kapi_ctx *c, u32 mtu) noexcept
{
	Interface *i = ifc(c);
	return i ? kstd::to_errno(i->change_mtu(mtu)) : -KAPI_ENODEV;
}
extern "C" void ipoib_core_if_renamed(kapi_ctx *c) noexcept
{
	if (Interface *i = ifc(c))
		i->renamed();
}
extern "C" u32 ipoib_core_if_fix_features(kapi_ctx *c, u32 features) noexcept
{
	Interface *i = ifc(c);
	return i ? i->fix_features(features) : features;
}
extern "C" int ipoib_core_if_poll(kapi_ctx *c, int budget) noexcept
{
	Interface *i = ifc(c);
	return i ? i->poll(budget) : 0;
}
extern "C" void ipoib_core_if_work(kapi_ctx *c) noexcept
{
	if (Interface *i = ifc(c))
		i->work();
}
extern "C" int ipoib_core_if_header_create(kapi_ctx *c, kapi_skb *skb, u16 type, const u8 *daddr) noexcept
{
	Interface *i = ifc(c);
	return i ? i->header_create(skb, type, daddr) : -KAPI_ENODEV;
}
extern "C" void ipoib_core_if_stats(kapi_ctx *c, kapi_stats64 *o) noexcept
{
	if (Interface *i = ifc(c))
		i->stats64(*o);
}

// ---- ethtool ----
extern "C" int ipoib_core_if_stat_count(kapi_ctx *) noexcept { return int(kEthtoolStats); }
extern "C" const char *ipoib_core_if_stat_name(kapi_ctx *, int i) noexcept { return stat_name(u32(i)); }
extern "C" void ipoib_core_if_stat_values(kapi_ctx *c, u64 *out, int n) noexcept
{
	Interface *i = ifc(c);
	if (i && n == int(kEthtoolStats)) {	// n: ipoib_core_if_stat_count's, always
		i->stat_values(*reinterpret_cast<u64(*)[kEthtoolStats]>(out));
		return;
	}
	for (int k = 0; k < n; k++)
		out[k] = 0;
}
extern "C" void ipoib_core_if_ring_sizes(kapi_ctx *c, u32 *tx, u32 *rx, u32 *max) noexcept
{
	Interface *i = ifc(c);
	*tx = i ? i->send_size() : 0;
	*rx = i ? i->recv_size() : 0;
	*max = kMaxQueueSize;
}
extern "C" int ipoib_core_if_set_rings(kapi_ctx *c, u32 tx, u32 rx, u8 *addr, const char **why) noexcept
{
	Interface *i = ifc(c);
	return i ? kstd::to_errno(i->set_rings(tx, rx, addr, why)) : -KAPI_ENODEV;
}
extern "C" u32 ipoib_core_if_speed(kapi_ctx *c) noexcept
{
	Interface *i = ifc(c);
	return i ? i->speed_mbps() : 0;
}
extern "C" void ipoib_core_if_get_coalesce(kapi_ctx *c, u32 *usecs, u32 *frames) noexcept
{
	*usecs = *frames = 0;
	if (Interface *i = ifc(c))
		i->get_coalesce(*usecs, *frames);
}
extern "C" int ipoib_core_if_set_coalesce(kapi_ctx *c, u32 usecs, u32 frames) noexcept
{
	Interface *i = ifc(c);
	return i ? kstd::to_errno(i->set_coalesce(usecs, frames)) : -KAPI_ENODEV;
}

// ---- sysfs ----
extern "C" const char *ipoib_core_if_mode_name(kapi_ctx *c) noexcept
{
	Interface *i = ifc(c);
	return i ? i->mode_name() : "";
}
extern "C" u16 ipoib_core_if_mode(kapi_ctx *c) noexcept
{
	Interface *i = ifc(c);
	return i ? i->mode() : u16(KAPI_IPOIB_MODE_DATAGRAM);
}
extern "C" int ipoib_core_if_mode_store(kapi_ctx *c, const char *buf, kapi_size_t len) noexcept
{
	Interface *i = ifc(c);
	return i ? i->store_mode(StrView(buf, len)) : -KAPI_ENODEV;
}
extern "C" int ipoib_core_if_umcast(kapi_ctx *c) noexcept
{
	Interface *i = ifc(c);
	return i ? i->umcast() : 0;
}
extern "C" int ipoib_core_if_umcast_store(kapi_ctx *c, const char *buf, kapi_size_t len) noexcept
{
	Interface *i = ifc(c);
	return i ? i->store_umcast(StrView(buf, len)) : -KAPI_ENODEV;
}
extern "C" u16 ipoib_core_if_pkey(kapi_ctx *c) noexcept
{
	Interface *i = ifc(c);
	return i ? i->pkey() : 0;
}

// ---- events, SA, debugfs ----
extern "C" void ipoib_core_if_event(kapi_ctx *c, kapi_ib_event_kind kind, u32 port) noexcept
{
	if (Interface *i = ifc(c))
		i->port_event(kind, port);
}
extern "C" void ipoib_core_qp_event(kapi_ctx *c, kapi_qp_event_kind kind) noexcept
{
	if (ctx_is(c, KAPI_CTX_RC_QP)) {
		if (Connection *x = from_ctx<Connection>(c))
			x->qp_event(kind);
		return;
	}
	deliver_qp_event(c, kind);
}
// SRQ events: the Srq counts them; connected mode's table re-arms the limit (ipoib_cm.h).
extern "C" void ipoib_core_srq_event(kapi_ctx *c, kapi_qp_event_kind kind) noexcept
{
	deliver_srq_event(c, kind);
	// Every SRQ the driver creates is a connected-mode table's CmSrq (ipoib_cm.h).
	if (ctx_is(c, KAPI_CTX_SRQ))
		static_cast<CmSrq *>(from_ctx<Srq>(c))->table.srq_event(kind);
}
extern "C" int ipoib_core_join_done(kapi_ctx *c, kapi_mcast *mc, int status) noexcept
{
	McGroup *g = from_ctx<McGroup>(c);
	return g ? g->owner->join_done(*g, mc, status) : 0;
}
extern "C" void ipoib_core_path_done(kapi_ctx *c, int status, kapi_path *rec, u16 dlid) noexcept
{
	if (Path *p = from_ctx<Path>(c))
		p->owner.path_done(*p, status, rec, dlid);
}
extern "C" void ipoib_core_debugfs_show(kapi_ctx *c, kapi_seq *s) noexcept
{
	if (DebugFile *f = from_ctx<DebugFile>(c))
		f->owner->show(f->view, s);
}
extern "C" int ipoib_core_debugfs_write(kapi_ctx *c, const char *buf, kapi_size_t len, kapi_size_t total) noexcept
{
	DebugFile *f = from_ctx<DebugFile>(c);
	if (!f || f->view != DebugView::SendAccepted)
		return -KAPI_EINVAL;	// only the knob is writable (kapi_debugfs_knob)
	return f->owner->cm().store_send_accepted(StrView(buf, len), total);
}

// ---- connected mode: ib_cm (kapi/cm.c) ----
extern "C" kapi_ctx *ipoib_core_cm_req(kapi_ctx *listener, kapi_cm_id *id, const kapi_cm_event *ev) noexcept
{
	Interface *i = ifc(listener);
	return i ? i->cm().on_req(id, *ev) : nullptr;
}
extern "C" void ipoib_core_cm_event(kapi_ctx *c, const kapi_cm_event *ev) noexcept
{
	if (Connection *x = from_ctx<Connection>(c))
		x->cm_event(*ev);
}

// ---- P_Key children (rtnl held) ----
extern "C" int ipoib_core_child_sysfs(kapi_ctx *owner, int create, const char *buf, kapi_size_t len) noexcept
{
	Port *p = from_ctx<Port>(owner);
	return p ? kstd::to_errno(p->sysfs_child(create != 0, StrView(buf, len))) : -KAPI_ENODEV;
}
extern "C" int ipoib_core_child_newlink(kapi_ctx *owner, kapi_netdev *parent, int parent_is_child, kapi_netdev *dev,
					const kapi_link_args *a) noexcept
{
	Port *p = owner ? from_ctx<Port>(owner) : nullptr;
	return kstd::to_errno(Port::newlink_checked(p, parent, dev, parent_is_child != 0, a->has_link, link_args(*a)));
}
extern "C" void ipoib_core_child_dellink(kapi_ctx *owner, kapi_ctx *c) noexcept
{
	Port *p = from_ctx<Port>(owner);
	Interface *i = ifc(c);
	if (p && i)
		p->dellink(i);
}
extern "C" int ipoib_core_if_changelink(kapi_ctx *c, const kapi_link_args *a) noexcept
{
	Interface *i = ifc(c);
	return i ? i->changelink(link_args(*a)) : -KAPI_ENODEV;
}
