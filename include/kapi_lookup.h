/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_lookup.h - the shim file kapi/lookup.c: the boundary for the ib_client's get_net_dev_by_params (rdma_cm asks
 * which netdev an incoming connection request belongs to). Included by kapi.h.
 * The policy (which interface) is the core's (ipoib_lookup.h); the shim only answers
 * questions about one netdev.
 */
#ifndef KAPI_LOOKUP_H
#define KAPI_LOOKUP_H

#include "kapi_types.h"

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

#ifdef __cplusplus
}
#endif

#endif /* KAPI_LOOKUP_H */
