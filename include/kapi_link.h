/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kapi_link.h - the shim file kapi/link.c: the rtnl link kind "ipoib" and sysfs
 * create_child/delete_child of a port's netdev.
 * Same rules as kapi.h: opaque types, plain C, one kernel thing per function, no policy.
 * Included by kapi.h.
 */
#ifndef KAPI_LINK_H
#define KAPI_LINK_H

#include "kapi_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rtnl_link_register(); -EEXIST when another module (the in-tree ib_ipoib) holds the kind. */
int kapi_link_register(void) KAPI_NOEXCEPT;
void kapi_link_unregister(void) KAPI_NOEXCEPT;
/* What the shim read from an RTM_NEWLINK/CHANGELINK (IFLA_LINK, IFLA_IPOIB_*). */
struct kapi_link_args {
	kapi_u8 has_link, has_pkey, has_mode, has_umcast;
	kapi_u16 pkey, mode, umcast;
};

#ifdef __cplusplus
}
#endif

#endif /* KAPI_LINK_H */
