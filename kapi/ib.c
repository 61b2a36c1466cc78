// SPDX-License-Identifier: GPL-2.0
/*
 * Shim: the ib_client and port queries. ib_core calls add/remove for every IB device
 * (present at registration and hot-plugged later); both go straight to the core, which
 * decides what to bind.
 */
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "kapi.h"

static struct kapi_ctx *kapi_ib_core;	/* the core's Driver, set before registration */
static struct ib_client kapi_ib_client;

static struct ib_device *to_ib(const struct kapi_ib_device *d)
{
	return (struct ib_device *)d;
}

static int kapi_ib_add(struct ib_device *dev)
{
	void *ctx = NULL;
	int ret = ipoib_core_add_device(kapi_ib_core, (struct kapi_ib_device *)dev, &ctx);

	if (ret)
		return ret;	/* ib_core then never calls remove for this device */
	ib_set_client_data(dev, &kapi_ib_client, ctx);
	return 0;
}

static void kapi_ib_remove(struct ib_device *dev, void *ctx)
{
	ipoib_core_remove_device(kapi_ib_core, (struct kapi_ib_device *)dev, ctx);
}

/*
 * rdma_cm's question "which netdev does this REQ belong to" (ib_get_net_dev_by_params, from
 * the ib_cm work queue: process context, ib_core's client_data_rwsem held for reading, so
 * remove() cannot run meanwhile). The core answers with a held netdev or NULL.
 */
static struct net_device *kapi_ib_get_net_dev_by_params(struct ib_device *dev, u32 port, u16 pkey,
							const union ib_gid *gid,
							const struct sockaddr *addr,
							void *ctx)
{
	if (!ctx || !rdma_protocol_ib(dev, port))
		return NULL;
	return (struct net_device *)ipoib_core_get_netdev(ctx, port, pkey, gid ? gid->raw : NULL,
							  (const struct kapi_sockaddr *)addr);
}

/* Not "ipoib": that name belongs to the in-tree ib_ipoib, which may be loaded alongside. */
static struct ib_client kapi_ib_client = {
	.name = "ib_ipoib_cm",
	.add = kapi_ib_add,
	.remove = kapi_ib_remove,
	.get_net_dev_by_params = kapi_ib_get_net_dev_by_params,
};

int kapi_ib_register_client(struct kapi_ctx *driver)
{
	kapi_ib_core = driver;
	return ib_register_client(&kapi_ib_client);
}

void kapi_ib_unregister_client(void)
{
	ib_unregister_client(&kapi_ib_client);
	kapi_ib_core = NULL;
}

const char *kapi_ib_device_name(const struct kapi_ib_device *dev)
{
	return dev_name(&to_ib(dev)->dev);
}

u32 kapi_ib_first_port(const struct kapi_ib_device *dev)
{
	return rdma_start_port(to_ib(dev));
}

u32 kapi_ib_last_port(const struct kapi_ib_device *dev)
{
	return rdma_end_port(to_ib(dev));
}

int kapi_ib_port_is_ib(const struct kapi_ib_device *dev, u32 port)
{
	return rdma_protocol_ib(to_ib(dev), port);
}

/* ---- port queries ---- */
int kapi_ib_query_port(struct kapi_ib_device *dev, u32 port, struct kapi_port_attr *out)
{
	struct ib_port_attr a;
	int ret = ib_query_port(to_ib(dev), port, &a);

	if (ret)
		return ret;
	out->state = a.state;
	out->lid = a.lid;
	out->sm_lid = a.sm_lid;
	out->max_mtu = a.max_mtu;
	out->active_mtu = a.active_mtu;
	out->active_speed = a.active_speed;
	out->active_width = a.active_width;
	return 0;
}

int kapi_ib_query_pkey(struct kapi_ib_device *dev, u32 port, u16 index, u16 *pkey)
{
	return ib_query_pkey(to_ib(dev), port, index, pkey);
}

int kapi_ib_find_pkey(struct kapi_ib_device *dev, u32 port, u16 pkey, u16 *index)
{
	return ib_find_pkey(to_ib(dev), port, pkey, index);
}

void kapi_ib_query_sge(const struct kapi_ib_device *dev, struct kapi_dev_sge *out)
{
	const struct ib_device *d = (const struct ib_device *)dev;

	out->max_recv_sge = d->attrs.max_recv_sge > 0 ? d->attrs.max_recv_sge : 0;
	out->max_srq_sge = d->attrs.max_srq_sge > 0 ? d->attrs.max_srq_sge : 0;
	out->max_send_sge = d->attrs.max_send_sge > 0 ? d->attrs.max_send_sge : 0;
}

int kapi_ib_query_gid(struct kapi_ib_device *dev, u32 port, int index, u8 gid[16])
{
	union ib_gid g;
	int ret = rdma_query_gid(to_ib(dev), port, index, &g);

	if (!ret)
		memcpy(gid, g.raw, 16);
	return ret;
}
