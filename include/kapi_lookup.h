/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_lookup.h - the boundary for the ib_client's get_net_dev_by_params (rdma_cm asks
 * which netdev an incoming connection request belongs to). Included by kapi.h.
 * The policy (which interface) is the core's (ipoib_lookup.h); the shim only answers
 * questions about one netdev.
 */
#ifndef KAPI_LOOKUP_H
#define KAPI_LOOKUP_H

#ifdef __cplusplus
extern "C" {
#endif

struct kapi_sockaddr;	/* struct sockaddr (AF_INET / AF_INET6) */

/*
 * The netdev's master (e.g. a bond it is enslaved to) or else the netdev itself, with a
 * reference (dev_hold). Any context; takes only the RCU read lock.
 */
struct kapi_netdev *kapi_netdev_hold_master(struct kapi_netdev *nd) KAPI_NOEXCEPT;
/*
 * The netdev itself, or else one of its upper devices, that has the IP address addr
 * configured (looked up in that device's network namespace), with a reference; NULL if
 * none has it or addr is neither AF_INET nor AF_INET6. Any context; RCU read lock only.
 */
struct kapi_netdev *kapi_netdev_hold_by_addr(struct kapi_netdev *nd,
					     const struct kapi_sockaddr *addr) KAPI_NOEXCEPT;
void kapi_netdev_put(struct kapi_netdev *nd) KAPI_NOEXCEPT;

/*
 * Implemented by the core, called by the shim's get_net_dev_by_params with ib_core's
 * client_data_rwsem held for reading (so dev_ctx, the ipoib_core_add_device context, stays
 * valid). gid: 16 octets or NULL. Returns a held netdev or NULL.
 */
struct kapi_netdev *ipoib_core_get_netdev(void *dev_ctx, kapi_u32 port, kapi_u16 pkey,
					  const kapi_u8 *gid,
					  const struct kapi_sockaddr *addr) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_LOOKUP_H */
